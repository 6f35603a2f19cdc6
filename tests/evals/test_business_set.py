"""Loading a business set: the format, every fault it refuses, and the repository's parts."""

from __future__ import annotations

import copy
import functools
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from docuchat.corpus.parse import parse_bytes
from docuchat.errors import ConfigError
from docuchat.evals.business_set import EvalSet, find_quote, load_set

from .tiny_business_set import ACME_NOTICE, QUESTIONS, SCHEDULE_ROW, write_email, write_set

REPOSITORY_SET = Path(__file__).parents[2] / "evals" / "business"


def test_a_set_loads_with_each_quote_located_in_its_document(tmp_path: Path) -> None:
    loaded = load_set(write_set(tmp_path / "set"))

    assert [d.name for d in loaded.documents] == ["acme-terms.md", "brightline-terms.txt"]
    assert [q.kind for q in loaded.questions] == [
        "fact",
        "two_part",
        "comparison",
        "follow_up",
        "unanswerable",
        "unanswerable",
    ]
    comparison = loaded.questions[2]
    assert [p.subject for p in comparison.parts] == ["Acme", "Brightline"]
    evidence = comparison.parts[0].evidence[0]
    text = parse_bytes((loaded.folder / "documents" / evidence.document).read_bytes(), "a.md").text
    assert text[evidence.start : evidence.end] == ACME_NOTICE
    assert loaded.questions[3].history == ("What are Acme's payment terms?",)
    assert loaded.questions[5].category == "near_miss"
    assert loaded.questions[5].note == "payment terms only"
    assert not loaded.questions[4].answerable and loaded.questions[0].answerable


def test_a_quote_is_found_whatever_whitespace_separates_its_words() -> None:
    text = "Header\n\nPayment terms are\n30 days   from the date.  Next."
    start, end = find_quote(text, "terms are 30 days from the date.") or (0, 0)
    assert text[start:end] == "terms are\n30 days   from the date."
    assert find_quote(text, "terms are 45 days") is None
    assert find_quote(text, "   ") is None


def _with(change: dict[str, Any], index: int = 0) -> list[dict[str, Any]]:
    questions = copy.deepcopy(QUESTIONS)
    questions[index].update(change)
    return questions


FAULTS = {
    "quote not in its document": (
        _with(
            {
                "parts": [
                    {
                        "answers": ["30"],
                        "evidence": [
                            {"document": "acme-terms.md", "quote": "Payment is due in 30 days."}
                        ],
                    }
                ]
            }
        ),
        "is not in acme-terms.md's extracted text",
    ),
    "unknown document": (
        _with(
            {"parts": [{"answers": ["30"], "evidence": [{"document": "nope.md", "quote": "x"}]}]}
        ),
        "no document 'nope.md'",
    ),
    "unknown kind": (_with({"kind": "trivia"}), "kind 'trivia' is not one of"),
    "a fact with two parts": (
        _with({"parts": QUESTIONS[1]["parts"]}),
        "a fact question cannot have 2 gold part(s)",
    ),
    "a comparison part without its subject": (
        _with({"kind": "comparison", "parts": QUESTIONS[1]["parts"]}),
        "names its subject",
    ),
    "a follow-up without history": (_with({"history": []}, 3), "has a history"),
    "an unanswerable question with parts": (
        _with({"parts": QUESTIONS[0]["parts"]}, 4),
        "has no parts and a category",
    ),
    "an unanswerable question without category": (_with({"category": None}, 4), "category"),
    "a typo in a key": (_with({"questoin": "?"}), "unknown keys ['questoin']"),
    "answers without words": (
        _with({"parts": [{**QUESTIONS[0]["parts"][0], "answers": ["?!"]}]}),
        "answers with words",
    ),
    "no evidence": (
        _with({"parts": [{**QUESTIONS[0]["parts"][0], "evidence": []}]}),
        "needs evidence",
    ),
    "an empty question": (_with({"question": " "}), "question must be a non-empty string"),
    "a missing key": (_with({"id": None}), "id must be a non-empty string"),
    "a duplicate id": (_with({"id": "t-two"}), "the id 't-two' is used twice"),
}


@pytest.mark.parametrize("fault", FAULTS)
def test_a_faulty_question_is_refused_with_its_line(tmp_path: Path, fault: str) -> None:
    questions, message = FAULTS[fault]
    folder = write_set(tmp_path / "set", questions)
    with pytest.raises(ConfigError) as raised:
        load_set(folder)
    assert message in str(raised.value)
    assert "questions.jsonl:" in str(raised.value)


def test_a_line_that_is_not_json_is_refused_with_its_number(tmp_path: Path) -> None:
    folder = write_set(tmp_path / "set")
    with (folder / "questions.jsonl").open("a", encoding="utf-8") as lines:
        lines.write("{not json\n")
    with pytest.raises(ConfigError, match=r"questions\.jsonl:7: "):
        load_set(folder)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda f: (f / "questions.jsonl").write_text("\n\n"), "has no questions"),
        (lambda f: (f / "questions.jsonl").unlink(), "cannot read"),
        (lambda f: [p.unlink() for p in (f / "documents").iterdir()], "holds no document"),
        (lambda f: (f / "documents" / "acme-terms.md").write_text(""), "cannot read the set's"),
    ],
)
def test_a_broken_folder_is_refused(tmp_path: Path, damage: Any, message: str) -> None:
    folder = write_set(tmp_path / "set")
    damage(folder)
    with pytest.raises(ConfigError, match=message):
        load_set(folder)
    with pytest.raises(ConfigError, match="has no documents/ folder"):
        load_set(tmp_path)


def test_evidence_may_name_an_e_mails_attachment_but_not_one_that_cannot_be_read(
    tmp_path: Path,
) -> None:
    def fact(document: str) -> dict[str, Any]:
        evidence = [{"document": document, "quote": SCHEDULE_ROW}]
        return {
            "id": "m",
            "kind": "fact",
            "question": "When?",
            "parts": [{"answers": ["x"], "evidence": evidence}],
        }

    folder = write_set(tmp_path / "set", [fact("refit.eml › schedule.csv")], documents={})
    write_email(folder / "documents" / "refit.eml", {"photo.xyz": b"\x00\x01 not a document"})
    [question] = load_set(folder).questions
    assert question.parts[0].evidence[0].document == "refit.eml › schedule.csv"

    (folder / "questions.jsonl").write_text(json.dumps(fact("refit.eml › photo.xyz")) + "\n")
    with pytest.raises(
        ConfigError, match=re.escape("no document 'refit.eml › photo.xyz' in the set")
    ):
        load_set(folder)


def test_the_dev_part_loads_with_every_kind_and_a_third_unanswerable() -> None:
    dev = load_set(REPOSITORY_SET / "dev")
    kinds = Counter(q.kind for q in dev.questions)
    assert len(dev.documents) >= 8 and len(dev.questions) >= 100
    assert {d.suffix for d in dev.documents} == {".md", ".html", ".docx", ".pdf", ".txt"}
    assert min(kinds.values()) >= 9
    assert 0.28 <= kinds["unanswerable"] / len(dev.questions) <= 0.4
    categories = Counter(q.category for q in dev.questions if not q.answerable)
    assert set(categories) == {"absent_kind", "near_miss", "false_premise"}


def test_the_formats_part_loads_with_sheets_decks_and_e_mails() -> None:
    formats = load_set(REPOSITORY_SET / "formats")
    kinds = Counter(q.kind for q in formats.questions)
    assert len(formats.documents) == 6 and len(formats.questions) >= 60
    assert Counter(d.suffix for d in formats.documents) == {".xlsx": 2, ".pptx": 2, ".eml": 2}
    assert min(kinds.values()) >= 5
    assert 0.28 <= kinds["unanswerable"] / len(formats.questions) <= 0.4
    categories = Counter(q.category for q in formats.questions if not q.answerable)
    assert set(categories) == {"absent_kind", "near_miss", "false_premise"}
    cited = {e.document for q in formats.questions for p in q.parts for e in p.evidence}
    assert "harrogate-refit-thread.eml › harrogate-refit-schedule.csv" in cited
    dev = load_set(REPOSITORY_SET / "dev")
    assert not {d.name for d in formats.documents} & {d.name for d in dev.documents}


SEALED_PARTS = (
    "sealed",
    "sealed2",
    "sealed3",
    "sealed4",
    "sealed5",
    "sealed6",
    "sealed7",
    "sealed8",
    "sealed9",
    "sealed10",
    "sealed11",
    "sealed12",
    "sealed13",
    "sealed14",
    "sealed15",
    "sealed16",
    "sealed17",
    "sealed18",
    "sealed19",
    "sealed20",
    "sealed21",
    "sealed22",
    "sealed23",
    "sealed24",
    "sealed25",
    "sealed26",
    "sealed27",
    "sealed28",
    "sealed29",
)
_PERSON_MAIL = re.compile(r"\b([a-z]+)\.([a-z]+)@[a-z0-9-]+\.example\b")
_MAIL_DOMAIN = re.compile(r"@([a-z0-9-]+)\.example\b")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")


def _text(part: EvalSet) -> str:
    return "\n".join(parse_bytes(d.read_bytes(), d.name).text for d in part.documents)


def _names(text: str) -> set[str]:
    """The people and companies of a part's documents, as capitalised words: the surname of
    each first.last@ address whose full name the documents write, and for each mail domain
    the longest capitalised word it starts with (harrierfleet.example: "Harrier")."""
    words = set(_CAPITALISED.findall(text))
    lower = text.lower()
    people = {
        last.capitalize()
        for first, last in _PERSON_MAIL.findall(lower)
        if f"{first} {last}" in lower
    }
    companies = set()
    for domain in set(_MAIL_DOMAIN.findall(lower)):
        prefixes = [w for w in words if len(w) >= 4 and domain.startswith(w.lower())]
        companies.add(max(prefixes, key=len) if prefixes else domain.capitalize())
    return people | companies


def test_the_names_of_a_part_are_its_people_and_companies_by_their_addresses() -> None:
    text = (
        "Write to Jo Bloggs (jo.bloggs@harrierfleet.example) or to legal@harrierfleet.example."
        " Harrier Fleet Engineering Ltd. Invoices to accounts.payable@broadwater.example."
    )
    assert _names(text) == {"Bloggs", "Harrier", "Broadwater"}


@functools.cache
def _load_unread(name: str) -> EvalSet:
    """A part loaded without its fault's message, which could quote a sealed part."""
    try:
        return load_set(REPOSITORY_SET / name)
    except ConfigError:
        pytest.fail(f"the {name} part no longer loads: ask the lead (do not open it)")


@functools.cache
def _text_of(name: str) -> str:
    return _text(_load_unread(name))


def _assert_shares_nothing(name: str, part: EvalSet, others: Iterable[str]) -> None:
    """The part shares no document, company or person with the others: each check a bare
    bool, so that pytest has no names or quotes of a sealed part to print."""
    text = _text(part)
    for other in others:
        their = _load_unread(other)
        their_text = _text_of(other)
        shares_documents = bool(
            {d.name for d in part.documents} & {d.name for d in their.documents}
        )
        assert not shares_documents, f"the {name} and {other} parts share documents"
        names_theirs = bool(_names(text) & set(_CAPITALISED.findall(their_text)))
        assert not names_theirs, f"the {other} part names a company or person of the {name} part"
        named_in_theirs = bool(_names(their_text) & set(_CAPITALISED.findall(text)))
        assert not named_in_theirs, f"the {name} part names a company or person of the {other} part"


@pytest.mark.parametrize("name", SEALED_PARTS)
def test_a_sealed_part_loads_and_shares_no_document_company_or_person(name: str) -> None:
    """Reports no content of a sealed part, whatever fails (its questions stay unread): each
    check is a bare bool, so that pytest has no names or quotes to print."""
    sealed = _load_unread(name)
    assert len(sealed.documents) >= 6 and len(sealed.questions) >= 70, "sealed part too small"
    assert len({d.suffix for d in sealed.documents}) >= 5, "the sealed part's formats"
    _assert_shares_nothing(name, sealed, [o for o in ("dev", *SEALED_PARTS) if o != name])
    unanswerable = sum(not q.answerable for q in sealed.questions) / len(sealed.questions)
    assert 0.28 <= unanswerable <= 0.4, "the sealed part's share of unanswerable questions"


TRAINING_PARTS = sorted(p.name for p in (REPOSITORY_SET / "training").iterdir() if p.is_dir())


@pytest.mark.parametrize("name", TRAINING_PARTS)
def test_a_training_part_loads_and_shares_nothing_with_the_parts_that_judge(name: str) -> None:
    """A part written to train a reader on (``bench/train_reader.py``) must not teach it the
    documents, companies or people of a part that measures it (bare bools again)."""
    training = load_set(REPOSITORY_SET / "training" / name)
    assert len(training.documents) == 9 and len(training.questions) >= 100
    judging = ("dev", "formats", "fresh", *SEALED_PARTS)
    _assert_shares_nothing(f"training/{name}", training, judging)


def test_the_fresh_part_has_each_format_and_shares_nothing_with_the_other_parts() -> None:
    """The open part by a new writer: one document per format; it shares no document, company
    or person with any other part (bare bools again: a failure prints nothing of a sealed
    part)."""
    fresh = load_set(REPOSITORY_SET / "fresh")
    kinds = Counter(q.kind for q in fresh.questions)
    suffixes = Counter(d.suffix for d in fresh.documents)
    assert suffixes == dict.fromkeys(
        [".md", ".html", ".docx", ".pdf", ".txt", ".xlsx", ".pptx", ".eml"], 1
    )
    assert len(fresh.questions) >= 100 and min(kinds.values()) >= 8
    assert 0.28 <= kinds["unanswerable"] / len(fresh.questions) <= 0.4
    categories = Counter(q.category for q in fresh.questions if not q.answerable)
    assert set(categories) == {"absent_kind", "near_miss", "false_premise"}
    cited = {e.document for q in fresh.questions for p in q.parts for e in p.evidence}
    assert "yarrabee-invoice-query.eml › WAL-INV-20931-lines.csv" in cited
    _assert_shares_nothing("fresh", fresh, ["dev", "formats", *SEALED_PARTS])
