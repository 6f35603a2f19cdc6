"""Citations you can trust: numbered passages the run opened, checked against the answer.

Every passage ``open_citation`` returns gets a number ``[N]`` for the run.
After the run, each ``[N]`` in the answer is resolved:

- ``N`` that the run never opened is removed from the answer and reported;
- a cited sentence is *supported* when at least ``SUPPORT_THRESHOLD`` of its
  content terms (stemmed, stopwords dropped) occur in the passage's text;
- a citation is *verified* when some sentence citing it is supported; its
  quote is the passage sentence that best matches that claim, with its exact
  character span in the document;
- a sentence that makes a claim (``MIN_CLAIM_TERMS`` content terms or more)
  with no verified citation is flagged, unless it says that the documents do
  not hold something (an abstention is not a claim).

The threshold is calibrated on SQuAD 2.0 dev (see ``bench/calibrate_support.py``
and the README): answer-bearing sentences against their own paragraph versus
against another paragraph of the same article.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from docuchat.research.text import content_terms, sentence_spans
from docuchat.store.base import ChunkRecord

SUPPORT_THRESHOLD = 0.6
MIN_CLAIM_TERMS = 3

_MARKER = re.compile(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]")
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


@dataclass(frozen=True, slots=True)
class Verification:
    answer: str
    """The answer with markers of citations that were never opened removed."""
    citations: tuple[Citation, ...]
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


def support(claim: str, passage: str) -> float:
    """Share of the claim's content terms found in the passage (1.0 for a verbatim quote)."""
    terms = content_terms(claim)
    if not terms:
        return 0.0
    available = set(content_terms(passage))
    return sum(1 for t in terms if t in available) / len(terms)


def best_quote(claim: str, chunk: ChunkRecord) -> tuple[int, int, float]:
    """The chunk sentence that best supports ``claim``: (start, end) in the chunk, score."""
    claim_terms = set(content_terms(claim))
    best = (0, len(chunk.text), 0.0)
    for start, end in sentence_spans(chunk.text):
        terms = set(content_terms(chunk.text[start:end]))
        score = len(claim_terms & terms) / len(claim_terms) if claim_terms else 0.0
        if score > best[2]:
            best = (start, end, score)
    return best


def is_abstention(sentence: str) -> bool:
    """The sentence says that the documents do not hold something ("The documents do not
    say.", "I could not find ..."): a statement about the documents, not a claim."""
    return bool(_ABSTENTION.match(_MARKER.sub("", sentence).strip()))


def declines(answer: str) -> bool:
    """The answer declines: it is empty, or it opens by saying that the documents do not
    hold the answer (whatever follows, such as a correction of the question's premise)."""
    first = next(sentence_spans(answer), None)
    return first is None or is_abstention(answer[first[0] : first[1]])


def cited_claims(answer: str) -> list[tuple[str, tuple[int, ...]]]:
    """Each sentence of ``answer`` that cites passages: its claim (markers dropped) and the
    numbers it cites."""
    found = []
    for start, end in sentence_spans(answer):
        sentence = answer[start:end]
        numbers = tuple(int(n) for group in _MARKER.findall(sentence) for n in group.split(","))
        if numbers:
            found.append((_MARKER.sub("", sentence).strip(), numbers))
    return found


def verify(answer: str, registry: CitationRegistry) -> Verification:
    removed: set[int] = set()
    found: dict[int, Citation] = {}
    unsupported: list[str] = []
    kept_sentences: list[str] = []
    for start, end in sentence_spans(answer):
        sentence = answer[start:end]
        numbers = [int(n) for group in _MARKER.findall(sentence) for n in group.split(",")]
        claim = _MARKER.sub("", sentence).strip()
        unknown = {n for n in numbers if n not in registry.passages}
        removed |= unknown
        supported_here = False
        for n in dict.fromkeys(numbers):
            if n in unknown:
                continue
            citation = _check(n, claim, registry.passages[n])
            supported_here |= citation.verified
            previous = found.get(n)
            # A passage cited by several sentences is reported with its best-supported one.
            if previous is None or (citation.verified, citation.support) > (
                previous.verified,
                previous.support,
            ):
                found[n] = citation
        if (
            not supported_here
            and len(content_terms(claim)) >= MIN_CLAIM_TERMS
            and not is_abstention(claim)
        ):
            unsupported.append(claim)
        kept_sentences.append(_strip_markers(sentence, unknown) if unknown else sentence)
    cleaned = _rejoin(answer, kept_sentences) if removed else answer
    return Verification(
        answer=cleaned,
        citations=tuple(found[n] for n in sorted(found)),
        removed=tuple(sorted(removed)),
        unsupported_claims=tuple(unsupported),
    )


def _check(n: int, claim: str, chunk: ChunkRecord) -> Citation:
    score = support(claim, chunk.text)
    start, end, _ = best_quote(claim, chunk)
    return Citation(
        n=n,
        doc_id=chunk.doc_id,
        title=chunk.title,
        chunk_id=chunk.id,
        page=chunk.page_at(chunk.start + start),  # where the quote starts
        start=chunk.start + start,
        end=chunk.start + end,
        quote=chunk.text[start:end],
        verified=score >= SUPPORT_THRESHOLD,
        support=round(score, 3),
    )


def _strip_markers(sentence: str, unknown: Iterable[int]) -> str:
    drop = set(unknown)

    def keep(match: re.Match[str]) -> str:
        numbers = [n.strip() for n in match.group(1).split(",") if int(n) not in drop]
        return f" [{', '.join(numbers)}]" if numbers else ""

    return _MARKER.sub(keep, sentence)


def _rejoin(original: str, sentences: list[str]) -> str:
    separator = "\n" if "\n" in original else " "
    return separator.join(s for s in sentences if s.strip())
