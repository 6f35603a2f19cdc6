"""The business scorer's rules on hand-made answers: each rule can fail on its own."""

from __future__ import annotations

import pytest

from docuchat.evals.business import (
    AnswerFacts,
    BusinessReport,
    CitedSpan,
    QuestionScore,
    contains_gold,
    score,
)
from docuchat.evals.business_set import Category, Evidence, GoldPart, Kind, SetQuestion

DOC_IDS = {"acme.md": "d-acme", "bright.docx": "d-bright"}
ACME_PAY = Evidence("acme.md", "Payment terms are 30 days.", 100, 126)
ACME_ALSO = Evidence("acme.md", "Invoices are due after 30 days.", 400, 431)
BRIGHT_PAY = Evidence("bright.docx", "Invoices are payable within 45 days.", 50, 86)


def _question(kind: Kind, *parts: GoldPart, category: Category | None = None) -> SetQuestion:
    return SetQuestion("q", kind, "?", parts, category=category)


FACT = _question("fact", GoldPart(("30 days",), (ACME_PAY, ACME_ALSO)))
COMPARISON = _question(
    "comparison",
    GoldPart(("30 days",), (ACME_PAY,), "Acme"),
    GoldPart(("45 days",), (BRIGHT_PAY,), "Brightline"),
)
UNANSWERABLE = _question("unanswerable", category="absent_kind")


def _cite(
    doc: str,
    start: int,
    end: int,
    *,
    passage: tuple[int, int] = (0, 1000),
    verified: bool = True,
) -> CitedSpan:
    return CitedSpan(DOC_IDS[doc], start, end, passage, verified)


def _answer(
    text: str,
    *citations: CitedSpan,
    abstained: bool = False,
    related: bool = False,
    partial: bool = False,
) -> AnswerFacts:
    """``related``: shown as related passages, not as an answer (``not_an_answer``);
    ``partial``: shown as an answer to part of the question."""
    presented = not abstained and not related
    return AnswerFacts(text, abstained, citations, presented=presented, partial=partial)


def _scored(question: SetQuestion, facts: AnswerFacts) -> QuestionScore:
    return score(question, facts, DOC_IDS, latency_ms=5.0)


def _parts(result: QuestionScore) -> list[tuple[bool, bool, bool]]:
    return [(p.found, p.quoted, p.cited) for p in result.parts]


def test_a_fact_is_right_with_its_answer_and_a_verified_citation_on_the_gold_quote() -> None:
    result = _scored(FACT, _answer("Payment terms are 30 days.", _cite("acme.md", 100, 126)))
    assert result.right and not result.wrong_as_answer
    assert _parts(result) == [(True, True, True)]


@pytest.mark.parametrize(
    ("why", "facts", "expected"),
    [
        (
            "the gold answer is missing",
            _answer("Terms: 45 days.", _cite("acme.md", 100, 126)),
            (False, True, True),
        ),
        (
            "the gold answer only inside a longer number",
            _answer("130 days", _cite("acme.md", 90, 110)),
            (False, True, True),
        ),
        ("no citation", _answer("30 days"), (True, False, False)),
        (
            "the citation is not verified",
            _answer("30 days", _cite("acme.md", 100, 126, verified=False)),
            (True, False, False),
        ),
        (
            "the citation is in another document",
            _answer("30 days", _cite("bright.docx", 100, 126)),
            (True, False, False),
        ),
        (
            "the quote ends where the gold quote starts (its passage holds it)",
            _answer("30 days", _cite("acme.md", 40, 100)),
            (True, False, True),
        ),
        (
            "the quote starts where the gold quote ends",
            _answer("30 days", _cite("acme.md", 126, 200, passage=(126, 300))),
            (True, False, False),
        ),
    ],
)
def test_a_fact_is_wrong_when_one_rule_fails(
    why: str, facts: AnswerFacts, expected: tuple[bool, bool, bool]
) -> None:
    result = _scored(FACT, facts)
    assert _parts(result) == [expected], why
    assert not result.right and result.wrong_as_answer


def test_any_gold_quote_and_any_overlap_count() -> None:
    other_quote = _scored(FACT, _answer("30 days", _cite("acme.md", 420, 500)))
    covering = _scored(FACT, _answer("30 days", _cite("acme.md", 0, 2000)))
    assert other_quote.right and covering.right


def test_a_citation_that_does_not_address_the_question_does_not_count() -> None:
    """The seam for an "addresses the question" flag: None (unknown) counts, False does not."""
    unknown = CitedSpan("d-acme", 100, 126, (0, 1000), True, addresses=None)
    off_topic = CitedSpan("d-acme", 100, 126, (0, 1000), True, addresses=False)
    assert _scored(FACT, _answer("30 days", unknown)).right
    assert _parts(_scored(FACT, _answer("30 days", off_topic))) == [(True, False, False)]


def test_a_quote_that_bears_on_no_part_is_stray() -> None:
    """Right, yet with a second quote off every gold quote: stray (one of the two answers
    presented); a citation that does not address the question or is unverified is not."""
    on_gold = _cite("acme.md", 100, 126)
    off_gold = _cite("acme.md", 600, 650)
    unshown = CitedSpan("d-acme", 600, 650, (0, 1000), True, addresses=False)
    results = (
        _scored(FACT, _answer("30 days", on_gold, off_gold)),
        _scored(FACT, _answer("30 days", on_gold, unshown, _cite("bright.docx", 50, 86))),
        _scored(COMPARISON, _answer("30 days, 45 days", on_gold, _cite("bright.docx", 50, 86))),
    )
    assert [r.stray for r in results] == [1, 1, 0]
    assert results[0].right and results[1].right
    clean = BusinessReport((results[2],)).to_dict()["overall"]["with_stray_quote"]
    assert BusinessReport(results[:1]).to_dict()["overall"]["with_stray_quote"] == 1.0
    assert clean == 0.0


def test_a_comparison_needs_every_subject_found_and_cited() -> None:
    both = _answer("Acme: 30 days; Brightline: 45 days.", _cite("acme.md", 100, 126))
    one_cited = _scored(COMPARISON, both)
    assert _parts(one_cited) == [(True, True, True), (True, False, False)]
    assert not one_cited.right and one_cited.wrong_as_answer

    all_cited = _scored(
        COMPARISON, _answer(both.text, *both.citations, _cite("bright.docx", 60, 70))
    )
    assert all_cited.right


def test_parts_read_in_one_passage_are_cited_by_it_whichever_sentence_it_quotes() -> None:
    """The Answer keeps one quote per passage: a two-part answer from one passage is cited
    for both parts when that passage holds both gold quotes, quoted for one."""
    two_part = _question(
        "two_part",
        GoldPart(("30 days",), (ACME_PAY,)),
        GoldPart(("31 days",), (Evidence("acme.md", "Notice is 31 days.", 300, 318),)),
    )
    text = "Payment terms are 30 days. Notice is 31 days."
    one_passage = _scored(two_part, _answer(text, _cite("acme.md", 100, 126, passage=(0, 500))))
    assert _parts(one_passage) == [(True, True, True), (True, False, True)]
    assert one_passage.right
    short_passage = _scored(two_part, _answer(text, _cite("acme.md", 100, 126, passage=(0, 200))))
    assert _parts(short_passage) == [(True, True, True), (True, False, False)]
    assert not short_passage.right


def test_a_declined_answerable_question_is_neither_right_nor_a_wrong_answer() -> None:
    result = _scored(FACT, _answer("The documents do not say.", abstained=True))
    assert not result.right and not result.wrong_as_answer and result.abstained


def test_an_unanswerable_question_is_right_only_when_declined() -> None:
    declined = _scored(UNANSWERABLE, _answer("The documents do not say.", abstained=True))
    answered = _scored(UNANSWERABLE, _answer("It is 12345678 [1].", _cite("acme.md", 1, 9)))
    assert declined.right and not declined.wrong_as_answer
    assert not answered.right and answered.wrong_as_answer
    assert declined.parts == ()


def test_quotes_shown_as_related_passages_are_not_presented_as_an_answer() -> None:
    """An answer whose citations the research agent judged not to address the question is
    shown under "No answer: ... Related passages" (``not_an_answer``): it is no wrong answer
    presented as one, an unanswerable question so shown is declined, and an answerable one
    is not right (its citations do not count)."""
    off_topic = CitedSpan("d-acme", 1, 9, (0, 1000), True, addresses=False)
    unanswerable = _scored(UNANSWERABLE, _answer("It is 12345678 [1].", off_topic, related=True))
    assert unanswerable.right and unanswerable.related and not unanswerable.wrong_as_answer
    on_gold = CitedSpan("d-acme", 100, 126, (0, 1000), True, addresses=False)
    fact = _scored(FACT, _answer("30 days [1]", on_gold, related=True))
    assert not fact.right and not fact.wrong_as_answer and fact.related


def test_gold_answers_match_whole_words_with_currency_set_apart() -> None:
    assert contains_gold("an annual fee of US$96,500, invoiced in advance", "96,500")
    assert contains_gold("The fee is £184,000.", "£184,000")
    assert contains_gold("THE FEE IS 184,000 POUNDS", "£184,000")
    assert contains_gold("within 48 hours of becoming aware", "48 hours")
    assert not contains_gold("US$1,096,500", "96,500")
    assert not contains_gold("within 148 hours", "48 hours")


def test_the_report_gives_each_figure_per_kind_category_and_overall() -> None:
    cited = _cite("acme.md", 100, 126)
    results = (
        _scored(FACT, _answer("30 days", cited)),  # right
        _scored(FACT, _answer("45 days", cited)),  # wrong, answered
        _scored(FACT, _answer("The documents do not say.", abstained=True)),  # declined
        # found both, one cited; shown as answering one part of two
        _scored(COMPARISON, _answer("30 days and 45 days", cited, partial=True)),
        _scored(UNANSWERABLE, _answer("The documents do not say.", abstained=True)),
        _scored(_question("unanswerable", category="near_miss"), _answer("30 days", cited)),
        _scored(
            _question("unanswerable", category="false_premise"),
            _answer("30 days", cited, related=True),  # shown as related passages
        ),
    )
    latencies = (30.0, 10.0, 60.0, 20.0, 50.0, 40.0, 70.0)
    report = BusinessReport(
        tuple(
            QuestionScore(
                r.question, r.answer, r.abstained, r.parts, ms, r.presented, r.partial, r.stray
            )
            for r, ms in zip(results, latencies, strict=True)
        )
    ).to_dict()

    assert report["kinds"]["fact"] == {
        "n": 3,
        "right": 0.3333,
        "found": 0.3333,
        "quoted": 0.6667,
        "cited": 0.6667,
        "declined": 0.3333,
        "wrong_as_answer": 0.3333,
        "wrong_shown_as_partial": 0.0,
    }
    assert report["kinds"]["comparison"] == {
        "n": 1,
        "right": 0.0,
        "found": 1.0,
        "quoted": 0.0,
        "cited": 0.0,
        "declined": 0.0,
        "wrong_as_answer": 1.0,
        "wrong_shown_as_partial": 1.0,
    }
    assert report["kinds"]["two_part"]["n"] == 0
    assert report["kinds"]["unanswerable"] == {
        "n": 3,
        "declined": 0.6667,
        "related": 0.3333,
        "wrong_as_answer": 0.3333,
    }
    assert report["unanswerable_by_category"] == {
        "absent_kind": {"n": 1, "declined": 1.0, "related": 0.0},
        "near_miss": {"n": 1, "declined": 0.0, "related": 0.0},
        "false_premise": {"n": 1, "declined": 1.0, "related": 1.0},
    }
    assert report["overall"] == {
        "n": 7,
        "right": 0.4286,
        "answered": 4,
        "related": 0.1429,
        "wrong_of_answered": 0.75,
        "wrong_of_all": 0.4286,
        "wrong_shown_as_partial": 0.1429,
        "with_stray_quote": 0.0,
    }
    assert report["latency_ms"] == {"p50": 40.0, "p95": 70.0}
    assert report["questions"][3] == {
        "id": "q",
        "right": False,
        "abstained": False,
        "related": False,
        "partial": True,
        "found": [True, True],
        "quoted": [True, False],
        "cited": [True, False],
        "stray": 0,
        "latency_ms": 20.0,
    }
