"""An evaluation set of business documents: its documents and its questions with gold data.

A part of a set is a folder (see ``evals/business/README.md``)::

    documents/        the files, ingested as they are (any format docuchat reads)
    questions.jsonl   one question per line

Each question has an ``id``, a ``kind``, the ``question`` and, by kind:

- ``fact``: one gold part; ``two_part``: two; ``comparison``: one per named subject
  (each with its ``subject``); ``follow_up``: the earlier questions of the
  conversation (``history``) and its own gold part(s);
- ``unanswerable``: no parts, a ``category`` (``absent_kind``: a kind of fact no
  document holds; ``near_miss``: a document states a related fact, not the one asked;
  ``false_premise``), optionally a ``history``.

A gold part has ``answers`` (any of which must appear in the answer) and ``evidence``:
``{"document": file name, "quote": text}`` items, any of which a citation may point at (a
file attached to an e-mail is named as ingestion names it: ``thread.eml › sheet.csv``).
Loading checks everything, and finds every quote in its document's extracted text (the
text citations point into, by the same parser as ingestion; whitespace may differ), so a
set whose gold no longer matches its documents fails here rather than scoring nonsense.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from docuchat.corpus.ingest import ATTACHMENT_MARK
from docuchat.corpus.parse import SUPPORTED_SUFFIXES, parse_bytes
from docuchat.errors import ConfigError, IngestError
from docuchat.evals.qa import normalize_answer

Kind = Literal["fact", "two_part", "comparison", "follow_up", "unanswerable"]
Category = Literal["absent_kind", "near_miss", "false_premise"]
KINDS: tuple[Kind, ...] = get_args(Kind)
CATEGORIES: tuple[Category, ...] = get_args(Category)
QUESTIONS_FILE = "questions.jsonl"
DOCUMENTS_FOLDER = "documents"

_KEYS = frozenset({"id", "kind", "question", "parts", "history", "category", "note"})
_PART_KEYS = frozenset({"answers", "evidence", "subject"})


@dataclass(frozen=True, slots=True)
class Evidence:
    document: str
    """The file's name in ``documents/``."""
    quote: str
    start: int
    """Where the quote is in the document's extracted text: [start, end)."""
    end: int


@dataclass(frozen=True, slots=True)
class GoldPart:
    answers: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    subject: str = ""
    """The named subject of a comparison's part ("Acme"); empty otherwise."""


@dataclass(frozen=True, slots=True)
class SetQuestion:
    id: str
    kind: Kind
    text: str
    parts: tuple[GoldPart, ...] = ()
    history: tuple[str, ...] = ()
    """Earlier questions of the conversation, asked first, in order."""
    category: Category | None = None
    note: str = ""

    @property
    def answerable(self) -> bool:
        return self.kind != "unanswerable"


@dataclass(frozen=True, slots=True)
class EvalSet:
    folder: Path
    documents: tuple[Path, ...]
    questions: tuple[SetQuestion, ...]


def load_set(folder: str | Path) -> EvalSet:
    """Read and check one part of a set; ConfigError (with the file and line) on any fault."""
    root = Path(folder)
    documents_folder = root / DOCUMENTS_FOLDER
    if not documents_folder.is_dir():
        raise ConfigError(f"{root} has no {DOCUMENTS_FOLDER}/ folder")
    documents = tuple(
        sorted(
            p
            for p in documents_folder.iterdir()
            if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES
        )
    )
    if not documents:
        raise ConfigError(f"{documents_folder} holds no document docuchat can read")
    texts = {name: text for path in documents for name, text in _extracted_texts(path)}
    path = root / QUESTIONS_FILE
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    questions: list[SetQuestion] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            question = _question(json.loads(line), texts)
        except (ValueError, TypeError, KeyError) as exc:
            raise ConfigError(f"{path}:{number}: {exc}") from exc
        if question.id in seen:
            raise ConfigError(f"{path}:{number}: the id {question.id!r} is used twice")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise ConfigError(f"{path} has no questions")
    return EvalSet(root, documents, tuple(questions))


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """The span of ``quote`` in ``text`` where any run of whitespace in either matches any
    other (a PDF's line breaks, a table's cell padding); None when it is not there."""
    collapsed: list[str] = []
    origin: list[int] = []
    for i, char in enumerate(text):
        if char.isspace():
            if collapsed and collapsed[-1] == " ":
                continue
            char = " "
        collapsed.append(char)
        origin.append(i)
    wanted = " ".join(quote.split())
    at = "".join(collapsed).find(wanted)
    if not wanted or at < 0:
        return None
    return origin[at], origin[at + len(wanted) - 1] + 1


def _extracted_texts(path: Path) -> list[tuple[str, str]]:
    """The document's name and text, then each attachment's ("thread.eml › sheet.csv");
    an attachment that cannot be read is left out, as ingestion skips it."""
    try:
        document = parse_bytes(path.read_bytes(), str(path))
    except (OSError, IngestError) as exc:
        raise ConfigError(f"cannot read the set's document {path}: {exc}") from exc
    found = [(path.name, document.text)]
    for attachment in document.attachments:
        try:
            inner = parse_bytes(attachment.data, attachment.name).text
        except IngestError:
            continue
        found.append((attached_name(path.name, attachment.name), inner))
    return found


def attached_name(document: str, attachment: str) -> str:
    """How gold evidence names a file attached to a document, as ingestion names it."""
    return f"{document}{ATTACHMENT_MARK}{attachment}"


def _question(data: Any, texts: Mapping[str, str]) -> SetQuestion:
    if not isinstance(data, dict):
        raise ValueError("a question must be a JSON object")
    unknown = set(data) - _KEYS
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)}")
    kind = data["kind"]
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    question = SetQuestion(
        id=_text(data, "id"),
        kind=kind,
        text=_text(data, "question"),
        parts=tuple(_part(p, texts) for p in data.get("parts", ())),
        history=tuple(_strings(data.get("history", []), "history")),
        category=data.get("category"),
        note=str(data.get("note", "")),
    )
    _check_shape(question)
    return question


def _check_shape(question: SetQuestion) -> None:
    parts, kind = len(question.parts), question.kind
    if kind == "unanswerable":
        if parts or question.category not in CATEGORIES:
            raise ValueError(
                f"an unanswerable question has no parts and a category of {CATEGORIES}"
            )
        return
    if question.category is not None:
        raise ValueError("only an unanswerable question has a category")
    wanted = {"fact": parts == 1, "two_part": parts == 2, "comparison": parts >= 2}
    if not wanted.get(kind, parts >= 1):
        raise ValueError(f"a {kind} question cannot have {parts} gold part(s)")
    if (kind == "follow_up") != bool(question.history):
        raise ValueError("a follow_up question has a history, and an answerable other one none")
    if (kind == "comparison") != all(p.subject for p in question.parts):
        raise ValueError("each part of a comparison, and only of one, names its subject")


def _part(data: Any, texts: Mapping[str, str]) -> GoldPart:
    if not isinstance(data, dict) or set(data) - _PART_KEYS:
        raise ValueError(f"a gold part is an object with keys among {sorted(_PART_KEYS)}")
    answers = _strings(data["answers"], "answers")
    if not answers or not all(normalize_answer(a) for a in answers):
        raise ValueError("a gold part needs answers with words in them")
    evidence = [_evidence(e, texts) for e in data["evidence"]]
    if not evidence:
        raise ValueError("a gold part needs evidence")
    return GoldPart(tuple(answers), tuple(evidence), str(data.get("subject", "")))


def _evidence(data: Any, texts: Mapping[str, str]) -> Evidence:
    document, quote = _text(data, "document"), _text(data, "quote")
    if document not in texts:
        raise ValueError(f"no document {document!r} in the set")
    span = find_quote(texts[document], quote)
    if span is None:
        raise ValueError(f"the quote {quote!r} is not in {document}'s extracted text")
    return Evidence(document, quote, *span)


def _text(data: Any, key: str) -> str:
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key} must be a non-empty string")
    return value


def _strings(value: Any, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{key} must be a list of non-empty strings")
    return value


__all__ = [
    "CATEGORIES",
    "KINDS",
    "Category",
    "EvalSet",
    "Evidence",
    "GoldPart",
    "Kind",
    "SetQuestion",
    "find_quote",
    "load_set",
]
