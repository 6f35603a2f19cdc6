"""Citations you can trust: numbered passages the run opened, checked against the answer.

Every passage ``open_citation`` returns gets a number ``[N]`` for the run.
After the run, each ``[N]`` in the answer is resolved:

- ``N`` that the run never opened is removed from the answer and reported;
- each citation is checked on its own against the sentence that carries it
  (``Verification.claims``): the passage *supports* the sentence when at least
  ``SUPPORT_THRESHOLD`` of the sentence's content terms (stemmed, stopwords
  dropped) occur in the passage, and the passage sentence that matches it
  best neither differs from it in negation ("is not" against "is") nor lacks
  one of its numbers. Its quote is that passage sentence, with its exact
  character span in the document;
- a passage cited by several sentences is listed once (``citations``, the
  sources): verified when it supports every sentence that cites it, with the
  quote and support of the sentence it supports least. So "verified" beside a
  sentence never stands for another sentence's support;
- a sentence that makes a claim (``MIN_CLAIM_TERMS`` content terms or more)
  with no verified citation is flagged, unless it says that the documents do
  not hold something (an abstention is not a claim).

A marker holds at most ``MAX_MARKER_DIGITS`` digits: a run opens a handful of
passages, and a bracketed run of digits longer than that is text (Python
refuses to convert more than 4,300 digits, and a model may write anything).

The threshold is calibrated on SQuAD 2.0 dev (see ``bench/calibrate_support.py``
and the README): answer-bearing sentences against their own paragraph versus
against another paragraph of the same article.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from docuchat.corpus.locations import Location, PageRegion, labels_page, places_in
from docuchat.research.contradiction import negation_differs, numbers_in_context
from docuchat.research.text import content_terms, sentence_spans
from docuchat.store.base import ChunkRecord, Store

SUPPORT_THRESHOLD = 0.6
MIN_CLAIM_TERMS = 3
MAX_MARKER_DIGITS = 4

_NUMBER = rf"[0-9]{{1,{MAX_MARKER_DIGITS}}}"  # ASCII digits, as the web page reads them
_MARKER = re.compile(rf"\s*\[({_NUMBER}(?:\s*,\s*{_NUMBER})*)\]")
_MARKER_NUMBER = re.compile(_NUMBER)
# Saying that something is not there is not a claim about the documents' content.
_ABSTENTION = re.compile(
    r"^(?:the |these |your )?(?:(?:provided|available|uploaded) )?"
    r"(?:documents?|sources?|passages?|files?) (?:do|does|did)(?: not|n['’]t)"
    r"|^(?:i )?(?:could|can|was unable to|am unable to)(?:not| not)? (?:find|complete|answer)"
    r"|^not processed|^no (?:document|passage|source)s? ",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Citation:
    """One passage checked against a sentence: whether it supports it, and the quote."""

    n: int
    doc_id: str
    title: str
    chunk_id: str
    page: int
    start: int
    """Character span of ``quote`` in the document's extracted text."""
    end: int
    quote: str
    verified: bool
    support: float
    page_end: int = 0
    """The page where the quote ends (``page`` where it starts)."""
    locations: tuple[Location, ...] = ()
    """Where the quote stands in the original: per page its boxes (PDFs, scans), else
    its slide, sheet cells or section."""

    @property
    def label(self) -> str:
        """Where to look, as every view writes it: "page 2", "pages 2-3" (only when the
        quote itself crosses), "slide 4", "Budget 2026!A2:C2", a section's heading."""
        places = [
            p.label() for p in self.locations if not isinstance(p, PageRegion) and labels_page(p)
        ]
        if places:
            return ", ".join(places)
        return chunk_label(self.page, self.page_end)


@dataclass(frozen=True, slots=True)
class Claim:
    """A sentence of the answer that cites passages, with each of its citations checked."""

    text: str
    """The sentence without its markers."""
    citations: tuple[Citation, ...]
    """In the order the sentence cites them."""

    @property
    def supported(self) -> bool:
        return any(c.verified for c in self.citations)


@dataclass(frozen=True, slots=True)
class Verification:
    answer: str
    """The answer with markers of citations that were never opened removed."""
    citations: tuple[Citation, ...]
    """The sources: each passage cited, once, by number (see the module's doc)."""
    claims: tuple[Claim, ...]
    """Each sentence that cites an opened passage, in the answer's order."""
    removed: tuple[int, ...]
    """Numbers cited in the answer that the run did not open."""
    unsupported_claims: tuple[str, ...]

    @property
    def verified_count(self) -> int:
        return sum(1 for c in self.citations if c.verified)


@dataclass(slots=True)
class CitationRegistry:
    """The passages one run opened, numbered in the order they were first opened."""

    passages: dict[int, ChunkRecord] = field(default_factory=dict)
    _numbers: dict[str, int] = field(default_factory=dict)

    def number(self, chunk: ChunkRecord) -> int:
        n = self._numbers.get(chunk.id)
        if n is None:
            n = self._numbers[chunk.id] = len(self.passages) + 1
            self.passages[n] = chunk
        return n


@dataclass(frozen=True, slots=True)
class Support:
    """How far a passage supports a claim."""

    score: float
    """Share of the claim's content terms found in the passage; 0 when the passage's best
    matching sentence contradicts the claim."""
    start: int
    """The passage sentence that best matches the claim: its span in the passage."""
    end: int
    contradicted: bool
    """That sentence differs from the claim in negation, or lacks one of its numbers."""


def assess(claim: str, passage: str) -> Support:
    terms = content_terms(claim)
    wanted = set(terms)
    available: set[str] = set()  # the passage's terms: its sentences' together
    start, end, shared = 0, len(passage), 0  # the whole passage when no sentence matches
    sentences = []
    for sentence_start, sentence_end in sentence_spans(passage):
        sentences.append(passage[sentence_start:sentence_end])
        sentence_terms = set(content_terms(sentences[-1]))
        available |= sentence_terms
        if len(wanted & sentence_terms) > shared:
            start, end, shared = sentence_start, sentence_end, len(wanted & sentence_terms)
    if not terms:
        return Support(0.0, start, end, contradicted=False)
    share = sum(1 for t in terms if t in available) / len(terms)
    contradicted = negation_differs(claim, passage[start:end]) or not numbers_in_context(
        claim, sentences
    )
    return Support(0.0 if contradicted else share, start, end, contradicted)


def support(claim: str, passage: str) -> float:
    """Share of the claim's content terms found in the passage (1.0 for a verbatim quote),
    or 0 when the passage contradicts it."""
    return assess(claim, passage).score


def is_abstention(sentence: str) -> bool:
    """The sentence says that the documents do not hold something ("The documents do not
    say.", "I could not find ..."): a statement about the documents, not a claim."""
    return bool(_ABSTENTION.match(_MARKER.sub("", sentence).strip()))


def declines(answer: str) -> bool:
    """The answer declines: it is empty, or it opens by saying that the documents do not
    hold the answer (whatever follows, such as a correction of the question's premise)."""
    first = next(sentence_spans(answer), None)
    return first is None or is_abstention(answer[first[0] : first[1]])


def verify(answer: str, registry: CitationRegistry) -> Verification:
    removed: set[int] = set()
    claims: list[Claim] = []
    unsupported: list[str] = []
    kept_sentences: list[str] = []
    for start, end in sentence_spans(answer):
        sentence = answer[start:end]
        cited = [
            int(n) for group in _MARKER.findall(sentence) for n in _MARKER_NUMBER.findall(group)
        ]
        text = _MARKER.sub("", sentence).strip()
        unknown = {n for n in cited if n not in registry.passages}
        removed |= unknown
        checked = tuple(
            _check(n, text, registry.passages[n]) for n in dict.fromkeys(cited) if n not in unknown
        )
        if checked:
            claims.append(Claim(text, checked))
        if (
            not any(c.verified for c in checked)
            and len(content_terms(text)) >= MIN_CLAIM_TERMS
            and not is_abstention(text)
        ):
            unsupported.append(text)
        kept_sentences.append(_strip_markers(sentence, unknown) if unknown else sentence)
    cleaned = _rejoin(answer, kept_sentences) if removed else answer
    return Verification(
        answer=cleaned,
        citations=_sources(claims),
        claims=tuple(claims),
        removed=tuple(sorted(removed)),
        unsupported_claims=tuple(unsupported),
    )


def _sources(claims: list[Claim]) -> tuple[Citation, ...]:
    """Each passage once: as checked against the sentence it supports least."""
    weakest: dict[int, Citation] = {}
    for citation in (c for claim in claims for c in claim.citations):
        known = weakest.get(citation.n)
        if known is None or (citation.verified, citation.support) < (known.verified, known.support):
            weakest[citation.n] = citation
    return tuple(weakest[n] for n in sorted(weakest))


def _check(n: int, claim: str, chunk: ChunkRecord) -> Citation:
    found = assess(claim, chunk.text)
    return Citation(
        n=n,
        doc_id=chunk.doc_id,
        title=chunk.title,
        chunk_id=chunk.id,
        page=chunk.page_at(chunk.start + found.start),  # where the quote starts
        start=chunk.start + found.start,
        end=chunk.start + found.end,
        quote=chunk.text[found.start : found.end],
        verified=found.score >= SUPPORT_THRESHOLD,
        support=round(found.score, 3),
        page_end=chunk.page_at(chunk.start + max(found.end - 1, found.start)),
        locations=tuple(
            places_in(chunk.places, chunk.start + found.start, chunk.start + found.end)
        ),
    )


def chunk_label(page: int, page_end: int) -> str:
    """The one page label of a span of text: "page 2", or "pages 2-3" when it crosses."""
    return f"page {page}" if page_end <= page else f"pages {page}-{page_end}"


def passage_label(chunk: ChunkRecord) -> str:
    """Where a passage is, by the rule citations follow: its first place, else the page
    it starts on ("pages 1-2" when the passage itself crosses a page break)."""
    places = [p for p in places_in(chunk.places, chunk.start, chunk.start + 1) if labels_page(p)]
    return places[0].label() if places else chunk_label(chunk.page, chunk.page_end)


def locate(citations: Iterable[Citation], store: Store, owner: str) -> tuple[Citation, ...]:
    """The citations with the boxes their quotes cover on the original pages, when the
    document has page boxes (PDFs and pictures)."""
    located = []
    for citation in citations:
        regions = store.text_regions(owner, citation.doc_id, citation.start, citation.end)
        located.append(replace(citation, locations=(*regions, *citation.locations)))
    return tuple(located)


def _strip_markers(sentence: str, unknown: Iterable[int]) -> str:
    drop = set(unknown)

    def keep(match: re.Match[str]) -> str:
        numbers = [n for n in _MARKER_NUMBER.findall(match.group(1)) if int(n) not in drop]
        return f" [{', '.join(numbers)}]" if numbers else ""

    return _MARKER.sub(keep, sentence)


def _rejoin(original: str, sentences: list[str]) -> str:
    separator = "\n" if "\n" in original else " "
    return separator.join(s for s in sentences if s.strip())
