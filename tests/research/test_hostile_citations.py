"""Answers that try to pass for supported: negations, changed numbers, a supported sentence
lending its "verified" to another, and markers no integer conversion can hold."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docuchat.research.citations import CitationRegistry, support, verify
from docuchat.store.base import ChunkRecord

MEETING = (
    "Agenda. The meeting is on Tuesday in the main hall. Lunch is not provided. "
    "The annual rent is 14,400 pounds, payable monthly. The deposit is 1,200 pounds."
)


def registry(text: str = MEETING) -> CitationRegistry:
    found = CitationRegistry()
    found.number(ChunkRecord("d1-0000", "d1", "Notes", 0, 1, 1, 0, len(text), text))
    return found


def verified(answer: str) -> list[bool]:
    """Each citation of each sentence: verified or not."""
    return [c.verified for claim in verify(answer, registry()).claims for c in claim.citations]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The meeting is on Tuesday [1].", [True]),
        ("The meeting is not on Tuesday [1].", [False]),
        ("The meeting is never on Tuesday [1].", [False]),
        ("The meeting isn't on Tuesday [1].", [False]),
        ("Lunch is not provided [1].", [True]),
        ("Lunch is provided [1].", [False]),
    ],
)
def test_a_negation_one_side_lacks_is_not_support(answer: str, expected: list[bool]) -> None:
    assert verified(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The annual rent is 14,400 pounds [1].", [True]),
        ("The annual rent is 14400 pounds [1].", [True]),
        ("The annual rent is 14,000 pounds [1].", [False]),
        ("The annual rent is 15,400 pounds, payable monthly [1].", [False]),
        ("The deposit is 1,200 pounds [1].", [True]),
        ("The deposit is 1,300 pounds [1].", [False]),
    ],
)
def test_a_changed_number_is_not_support(answer: str, expected: list[bool]) -> None:
    assert verified(answer) == expected


def test_a_negation_elsewhere_in_the_passage_sentence_does_not_unverify_a_claim() -> None:
    passage = "The most famous work is the Bayeux Tapestry, which is not a tapestry but embroidery."
    assert support("The most famous work is the Bayeux Tapestry.", passage) == 1.0
    assert support("The Bayeux Tapestry is not a tapestry.", passage) == 1.0
    assert support("The Bayeux Tapestry is a tapestry.", passage) == 0.0


def test_each_sentence_gets_its_own_verdict_for_the_same_passage() -> None:
    result = verify(
        "The meeting is on Tuesday [1]. The meeting is not on Tuesday in the main hall [1]. "
        "The annual rent is 14,400 pounds [1].",
        registry(),
    )
    assert [[c.verified for c in claim.citations] for claim in result.claims] == [
        [True],
        [False],
        [True],
    ]
    unsupported = "The meeting is not on Tuesday in the main hall."
    assert [claim.text for claim in result.claims if not claim.supported] == [unsupported]
    assert result.unsupported_claims == (unsupported,)
    # The passage listed once: not verified, since one sentence citing it is unsupported,
    # with the quote of that sentence's nearest passage sentence.
    (source,) = result.citations
    assert not source.verified
    assert source.quote == "The meeting is on Tuesday in the main hall."


@pytest.mark.parametrize("digits", [5, 4_301, 100_000])
def test_a_huge_citation_marker_is_text_not_a_citation(digits: int) -> None:
    marker = "[" + "9" * digits + "]"
    answer = f"The meeting is on Tuesday {marker}. The rent is 14,400 pounds [1]. [1, {marker[1:]}"
    result = verify(answer, registry())
    assert result.removed == ()
    assert marker in result.answer
    assert [c.n for c in result.citations] == [1]


def test_a_four_digit_marker_of_a_passage_never_opened_is_removed() -> None:
    result = verify("The meeting is on Tuesday [1, 9999].", registry())
    assert result.removed == (9999,)
    assert result.answer == "The meeting is on Tuesday [1]."


@given(
    st.lists(
        st.one_of(
            st.text(max_size=30),
            st.from_regex(r"\[\d{1,6}(?:\s*,\s*\d{1,6})*\]", fullmatch=True),
            st.sampled_from(["[" + "7" * 4_301 + "]", "[1, " + "8" * 5_000 + "]"]),
            st.sampled_from([" not ", " never ", "n't ", " 14,400 ", " no ", ". ", "[1]"]),
        ),
        max_size=12,
    )
)
@settings(deadline=None)
def test_verify_never_raises_whatever_the_markers(parts: list[str]) -> None:
    answer = "".join(parts)
    result = verify(answer, registry())
    assert set(result.removed).isdisjoint({1})
    assert all(c.n == 1 for claim in result.claims for c in claim.citations)
