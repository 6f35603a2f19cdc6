"""Citation numbering and verification, on hand-made passages."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from docuchat.research.citations import (
    SUPPORT_THRESHOLD,
    CitationRegistry,
    declines,
    support,
    verify,
)
from docuchat.research.text import sentence_spans
from docuchat.store.base import ChunkRecord

TEXT = (
    "Intro line. The bridge opened in 1932 after six years of work. "
    "It carries eight lanes of traffic. Tolls were removed in 2001."
)


def _chunk(chunk_id: str = "d1-0000", start: int = 100) -> ChunkRecord:
    return ChunkRecord(chunk_id, "d1", "Bridge History", 0, 3, 3, start, start + len(TEXT), TEXT)


def _registry(*chunks: ChunkRecord) -> CitationRegistry:
    registry = CitationRegistry()
    for chunk in chunks:
        registry.number(chunk)
    return registry


def test_numbers_follow_first_opening_and_reopening_keeps_the_number() -> None:
    registry = CitationRegistry()
    a, b = _chunk("a"), _chunk("b")
    assert [registry.number(a), registry.number(b), registry.number(a)] == [1, 2, 1]


def test_verbatim_quote_is_verified_with_its_exact_document_span() -> None:
    result = verify("It carries eight lanes of traffic [1].", _registry(_chunk()))
    (citation,) = result.citations
    assert citation.verified and citation.support == 1.0
    assert citation.quote == "It carries eight lanes of traffic."
    offset = TEXT.index("It carries")
    assert (citation.start, citation.end) == (100 + offset, 100 + offset + len(citation.quote))
    assert citation.page == 3 and result.verified_count == 1


def test_paraphrase_above_threshold_is_verified_and_unrelated_claim_is_not() -> None:
    assert support("The bridge opened in 1932.", TEXT) >= SUPPORT_THRESHOLD
    assert support("The tunnel collapsed during the 1950 earthquake.", TEXT) < SUPPORT_THRESHOLD
    result = verify(
        "The bridge opened in 1932 [1]. The tunnel collapsed during the 1950 earthquake [1].",
        _registry(_chunk()),
    )
    assert [c.verified for claim in result.claims for c in claim.citations] == [True, False]
    assert result.unsupported_claims == ("The tunnel collapsed during the 1950 earthquake.",)


def test_markers_of_unopened_passages_are_removed_and_reported() -> None:
    result = verify("Tolls were removed in 2001 [1, 3]. Traffic doubled [7].", _registry(_chunk()))
    assert result.removed == (3, 7)
    assert result.answer == "Tolls were removed in 2001 [1]. Traffic doubled."
    assert [c.n for c in result.citations] == [1]


def test_uncited_claims_are_flagged_but_short_remarks_are_not() -> None:
    result = verify("Thanks. The bridge has a red paint finish everywhere.", _registry())
    assert result.unsupported_claims == ("The bridge has a red paint finish everywhere.",)


def test_sentence_spans_respect_abbreviations_and_markers() -> None:
    text = "Dr. Smith built it in 1932 [1]. It cost $5 m. to build! Done"
    spans = [text[s:e] for s, e in sentence_spans(text)]
    assert spans == ["Dr. Smith built it in 1932 [1].", "It cost $5 m. to build!", "Done"]


@given(st.text())
def test_verify_never_raises_and_keeps_sentence_text(answer: str) -> None:
    result = verify(answer, _registry(_chunk()))
    assert all(c.n == 1 for c in result.citations)
    for start, end in sentence_spans(answer):
        assert answer[start:end].strip() == answer[start:end]


def test_a_blank_line_ends_a_sentence_so_headings_stand_alone() -> None:
    text = "3. Annual leave\n\nFull-time employees get 27 days. Part-time staff pro rata"
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "3. Annual leave",
        "Full-time employees get 27 days.",
        "Part-time staff pro rata",
    ]


def test_an_abstention_is_not_flagged_as_an_unsupported_claim() -> None:
    result = verify(
        "The documents do not say who designed the bridge. I could not find the architect's name.",
        _registry(),
    )
    assert result.unsupported_claims == ()


def test_a_passage_cited_twice_is_verified_per_sentence_and_listed_by_its_weakest() -> None:
    result = verify(
        "Bridges are often painted red in winter [1]. It carries eight lanes of traffic [1].",
        _registry(_chunk()),
    )
    painted, lanes = result.claims
    assert not painted.supported and lanes.supported
    assert lanes.citations[0].quote == "It carries eight lanes of traffic."
    (source,) = result.citations
    assert source == painted.citations[0] and not source.verified
    assert result.unsupported_claims == ("Bridges are often painted red in winter.",)


def test_an_answer_declines_when_empty_or_when_it_opens_by_saying_the_documents_lack_it() -> None:
    for declining in (
        "",
        "The documents do not say.",
        "The provided documents don't mention a bank account.",
        "I could not find the notice period in the documents.",
        "The documents do not say that production is in Paris; it runs in Frankfurt [1].",
    ):
        assert declines(declining), declining
    for answering in (
        "From the documents (extractive):\n\n“Payment terms are 30 days.” [1]",
        "Payment terms are 30 days [1]. The documents do not say more.",
        "Documentation is kept for 7 years [2].",
    ):
        assert not declines(answering), answering
