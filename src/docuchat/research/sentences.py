"""The sentences of opened passages, each with what surrounds it.

A sentence knows its neighbours (the sentences next to it in its paragraph), for a list or
a table the sentence that introduces it ("…within these limits:") and all of its items, and
its setting: the title of its document and the heading it stands under. Headings are not
sentences to quote: they are the setting of those that follow.

Two extractions have a shape of their own. A spreadsheet row comes as its header's line
above its own (``research.rows``): it is one sentence that states its cells named by the
header, not an item of a list of every row (each row stands alone, so one row's figures
are not another's), and the header's line on its own, above the first row, is the
setting of the rows, like a heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from docuchat.research.rows import header_and_row, is_row_of, row_reading
from docuchat.research.subjects import header
from docuchat.research.text import numbers, sentence_spans
from docuchat.research.words import content, naming, stem, words


@dataclass(frozen=True, slots=True)
class Passage:
    """An opened passage: its citation number, its chunk and its text."""

    n: int
    chunk_id: str
    text: str
    title: str = ""
    file: str = ""
    """The name of its document's file: its words are part of every sentence's setting, as
    the title's are (a contract titled "Chemical Supply Agreement" in
    "quarrington-chemical-supply-agreement.docx" is Quarrington's)."""


HEADING_WORDS = 8
SENTENCE_CLOSED = re.compile(r"[.!?…][\"'”’)\]]*$")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
_LISTED = re.compile(r"[\d:|]")
_SECTION_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[A-Z]\.)\s+(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class Sentence:
    n: int
    rank: int
    """The passage's position among those read (0 for the first opened)."""
    text: str
    words: tuple[str, ...]
    sequence: tuple[str, ...]
    stems: frozenset[str]
    context: frozenset[str]
    """Stems of the neighbouring sentences of the same paragraph, not in this one."""
    vocabulary: frozenset[str]
    """Stems of every word, stopwords included, of this sentence and its neighbours."""
    numbers: frozenset[str]
    """Whole numbers of this sentence and its neighbours."""
    items: tuple[int, ...] = ()
    """For a sentence of a list or table (its introduction, its header or an item): the ids
    of the list's other sentences."""
    id: int = 0
    """The sentence's position among all those read."""
    setting: frozenset[str] = frozenset()
    """Stems of its document's title and of the heading it stands under."""
    nearby: frozenset[str] = frozenset()
    """Its words and its neighbours' as written (lower case), every one."""
    title: str = ""
    """Its document's title."""
    subjects: frozenset[str] = frozenset()
    """Stems of the names its passage says it is about without its saying them: the
    header's above it (``research.subjects``)."""

    @property
    def window(self) -> frozenset[str]:
        return self.stems | self.context

    @property
    def surroundings(self) -> frozenset[str]:
        """Its stems, its neighbours' and its setting's."""
        return self.stems | self.context | self.setting


def sentences(passages: Iterable[Passage]) -> list[Sentence]:
    """Every sentence of the passages, best passage first, each knowing its neighbours."""
    found: list[Sentence] = []
    for rank, passage in enumerate(passages):
        texts: list[str] = []
        groups: list[tuple[int, int]] = []  # per sentence: (its paragraph, its list or table)
        settings: list[frozenset[str]] = []
        headers: list[frozenset[str]] = []
        heading = ""
        above: frozenset[str] = frozenset()  # the last header block's stems
        paragraphs = _PARAGRAPH_BREAK.split(passage.text)
        named = naming(passage.title, passage.file)
        for number, paragraph in enumerate(paragraphs):
            above = header(paragraph) or above
            if _heads_rows(paragraph, paragraphs[number + 1 : number + 2]):
                heading = paragraph.strip()
                continue
            row = header_and_row(paragraph.strip())
            spans = [(0, len(paragraph))] if row else sentence_spans(paragraph)
            for start, end in spans:
                text = paragraph[start:end].strip()
                if not row and _is_heading(text):
                    heading = text
                    continue
                listed = not row and bool(texts) and start == 0 and _continues(texts[-1], text)
                groups.append((number, groups[-1][1] if listed else len(texts)))
                texts.append(text)
                settings.append(frozenset(content(words(f"{named} {heading}"))))
                headers.append(above)
        found += _neighbours(passage, rank, texts, groups, (settings, headers), len(found))
    return found


def _heads_rows(paragraph: str, following: Sequence[str]) -> bool:
    """A sheet's header line on its own, above its first row (which repeats it)."""
    row = header_and_row(following[0].strip()) if following else None
    return row is not None and row[0] == paragraph.strip()


def _continues(before: str, after: str) -> bool:
    """A list or table runs on across paragraph breaks, from its introduction ("…:") to its
    items, and from item to item (lines that do not end like a sentence)."""
    item = not SENTENCE_CLOSED.search(after) and not after.endswith(":")
    return item and not SENTENCE_CLOSED.search(before)


def _neighbours(
    passage: Passage,
    rank: int,
    texts: Sequence[str],
    groups: Sequence[tuple[int, int]],
    setting: tuple[Sequence[frozenset[str]], Sequence[frozenset[str]]],
    first: int,
) -> list[Sentence]:
    """The sentences with their neighbours; ``setting``: per sentence, the stems of its
    title and heading, and those of the header above it."""
    settings, headers = setting
    said = [words(t) for t in texts]
    sequences = [content(w) for w in said]
    stem_sets = [frozenset(s) for s in sequences]
    every = [frozenset(stem(w) for w in ws) for ws in said]
    figures = [numbers(t) for t in texts]
    found = []
    for i, text in enumerate(texts):
        paragraph, listing = groups[i]
        around = {j for j in (i - 1, i + 1) if 0 <= j < len(texts) and groups[j][0] == paragraph}
        members = {j for j, group in enumerate(groups) if group[1] == listing and j != i}
        context = frozenset().union(*(stem_sets[j] for j in around | members)) - stem_sets[i]
        vocabulary = every[i].union(*(every[j] for j in around | members))
        nearby = frozenset(said[i]).union(*(said[j] for j in around | members))
        numbered = figures[i].union(*(figures[j] for j in around | members))
        items = tuple(sorted(first + j for j in members))
        found.append(
            Sentence(
                passage.n,
                rank,
                text,
                tuple(said[i]),
                tuple(sequences[i]),
                stem_sets[i],
                context,
                vocabulary,
                numbered,
                items,
                first + i,
                settings[i],
                nearby,
                passage.title,
                headers[i],
            )
        )
    return found


def _is_heading(text: str) -> bool:
    """A short line without a full stop, a number or a colon, after its section number if it
    has one ("4. Fees and payment"): a title, not a sentence to quote (a list item or a table
    row usually has one of them)."""
    title = _SECTION_NUMBER.sub("", text, count=1)
    short = len(title.split()) < HEADING_WORDS
    return short and not SENTENCE_CLOSED.search(title) and not _LISTED.search(title)


def introduction(s: Sentence, by_id: Mapping[int, Sentence]) -> Sentence | None:
    """The first sentence of ``s``'s list or table (its introduction or header), when ``s``
    is a later item of it."""
    first = min(s.items, default=s.id)
    return by_id[first] if first < s.id else None


def stating(s: Sentence, by_id: Mapping[int, Sentence]) -> str:
    """What ``s`` states: itself, with the introduction of its list or table when it is an
    item (the row "London | £210" under "…these limits per night:"); a table row as its
    cells named by its header ("Lead time 10 weeks", ``research.rows``)."""
    if sheet_row := header_and_row(s.text):
        return row_reading(*sheet_row)
    intro = introduction(s, by_id)
    if intro is not None and is_row_of(intro.text, s.text):
        return row_reading(intro.text, s.text)
    return s.text if intro is None else f"{intro.text} {s.text}"
