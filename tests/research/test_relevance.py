"""Whether cited text addresses the question: judged by the research layer for every model
(here a scripted one), per citation and per answer, and how the answer is then presented."""

from __future__ import annotations

from typing import Any

import pytest

from docuchat.models import ScriptedModel
from docuchat.models.base import ModelRequest, ModelResponse, ToolResultsMessage
from docuchat.models.scripted import call, calls, reply
from docuchat.research import OpenedPassage, ResearchAgent, SearchResults
from docuchat.research.kinds import asked_for, expected_kind, find
from docuchat.research.questions import analyse
from docuchat.research.relevance import judge, other_subject
from docuchat.research.sentences import Passage, sentences
from docuchat.search.hybrid import HybridSearcher


def _open_three_hits(request: ModelRequest) -> ModelResponse:
    message = request.messages[-1]
    assert isinstance(message, ToolResultsMessage)
    found = message.results[0].value
    assert isinstance(found, SearchResults)
    return calls(
        *(("open_citation", {"docId": h.doc_id, "chunkId": h.chunk_id}) for h in found.hits[:3])
    )


def _citing(sentence: str) -> Any:
    """A reply that states ``sentence`` and cites the opened passage that holds it."""

    def respond(request: ModelRequest) -> ModelResponse:
        message = request.messages[-1]
        assert isinstance(message, ToolResultsMessage)
        opened = [r.value for r in message.results if isinstance(r.value, OpenedPassage)]
        found = [p.citation for p in opened if sentence[:20] in p.text]
        return reply(f"{sentence} [{found[0]}]." if found else f"{sentence}.")

    return respond


def _ask(searcher: HybridSearcher, question: str, sentence: str, query: str = "") -> Any:
    """The research agent's answer when a model searches ``query`` (the question by
    default), opens the first three hits and answers ``sentence``, citing the passage that
    holds it."""
    steps = [call("search_docs", query=query or question), _open_three_hits, _citing(sentence)]
    model = ScriptedModel(steps)
    answer = ResearchAgent(searcher, model, owner="alice").ask_sync(question)
    model.assert_all_consumed()
    return answer


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When does the lease start?", "date"),
        ("At what time does the shop open?", "time"),
        ("How long does the lease run?", "duration"),
        ("What notice period does the lease require?", "duration"),
        ("How much does the insurance cost?", "money"),
        ("What is the annual rent?", "money"),
        ("What is the monthly limit on a corporate card?", "quantity"),
        ("What percentage of the price is paid upfront?", "percent"),
        ("How many cottages are there?", "count"),
        ("Who inspected the house?", "person"),
        ("Where is the estate?", "name"),
        ("Which supplier was chosen?", "name"),
        ("What is the estate's bank account number?", "identifier"),
        ("Why was the roof replaced?", "reason"),
        ("Is the estate insured against flood?", None),
        # "paid" describes the leave asked for: a quantity of it, not an amount of money
        ("How much paid leave does a new parent get?", "quantity"),
        ("How much are the gardeners paid per hour?", "money"),
    ],
)
def test_the_kind_of_fact_a_question_asks_for(question: str, kind: str | None) -> None:
    assert expected_kind(question) == kind


@pytest.mark.parametrize(
    ("kind", "text", "found"),
    [
        ("date", "The lease runs from 1 March 2022.", "1 March 2022"),
        ("date", "Either party may end it.", None),  # "may" is no month
        ("duration", "The lease runs for five years.", "five years"),
        ("money", "The annual rent is 14,400 pounds.", "14,400 pounds"),
        ("money", "Rent rose by 12%.", None),
        # a currency's code before or after the amount, or a sign after a country's letters
        ("money", "The deposit is AUD 1,500, payable on signing.", "AUD 1,500"),
        ("money", "Cleaning costs 450 NZD a visit.", "450 NZD"),
        ("money", "Parking is NZ$12 a day.", "NZ$12"),
        ("money", "Rent is NOK 12 500 a month.", "NOK 12 500"),
        ("money", "Fare NOK 1 450 2026 season.", "NOK 1 450"),  # a year is no group
        ("money", "Export the cad 3 file.", None),  # a code is written in capitals
        ("percent", "Rent rose by 12%.", "12%"),
        ("person", "The valuer, Mara Quinn, inspected it.", "Mara Quinn"),
        ("identifier", "Sort code 40-12-88, account 31926654.", "40-12-88"),
        ("quantity", "The lease was signed on 15 July 2024.", None),  # a date is no quantity
    ],
)
def test_the_facts_of_a_kind_a_text_states(kind: Any, text: str, found: str | None) -> None:
    fact = find(kind, text)
    assert (fact.text if fact else None) == found


def test_a_two_part_question_has_a_part_per_clause_the_second_borrowing_the_first() -> None:
    asked = analyse("What is the rent of the east cottage, and when does its lease end?")
    first, second = asked.parts
    assert (first.kind, second.kind) == ("money", "date")
    assert second.terms["cottag"] == 0.5 and second.terms["end"] == 1.0


def test_a_comparison_has_a_part_per_subject_each_named_alone() -> None:
    asked = analyse("Who responds faster to a Priority 1 incident, Corvid or Acme?")
    assert asked.comparison and asked.subjects == ("Corvid", "Acme")
    corvid, acme = asked.parts
    assert corvid.text == "Who responds faster to a Priority 1 incident, Corvid?"
    assert "acm" not in corvid.terms and "acm" in acme.names
    # "Who" picks a subject; each subject's part asks for what "faster" compares.
    assert corvid.kind == acme.kind == "duration"


def test_a_follow_up_naming_another_subject_asks_the_previous_question_of_it() -> None:
    asked = analyse("And for P3 incidents?", ["What is the P1 response time in the Acme SLA?"])
    assert asked.follow_up and asked.text == "What is the P3 response time in the Acme SLA?"
    assert asked.parts[0].kind == "duration"


def test_a_sentence_without_the_thing_asked_for_does_not_address_it() -> None:
    text = "# Contacts\n\nAcme account manager | Priya Natarajan | priya@example.com"
    [row] = sentences([Passage(1, "c1", text, "Acme Contract")])
    asked = analyse("What is Acme's bank account number?")
    judged = judge(asked.parts[0], row, asked.text)
    assert not judged.addresses
    said, scored = judged.reasons()[:-1], judged.reasons()[-1]
    assert said == ["does not mention account number", "states no identifier"]
    assert scored.startswith(f"score {judged.score:.2f} (weighed most: ")
    asked = analyse("Who is our account manager at Acme?")
    assert judge(asked.parts[0], row, asked.text).addresses


def test_verified_citations_that_address_the_question_make_an_answer(
    searcher: HybridSearcher,
) -> None:
    answer = _ask(
        searcher,
        "What is the annual rent of the east cottage?",
        "The annual rent is 14,400 pounds, payable monthly in advance",
    )
    assert answer.verified_count == 1 and answer.addresses(answer.citations[0].n) is True
    assert answer.presentation == "answer"
    data = answer.to_dict(trace=False)
    assert data["citations"][0]["addresses"] is True
    assert data["citations"][0]["relevance"]["answer"] == "14,400 pounds"  # the money asked
    assert data["relevance"]["parts"][0]["addressed_by"] == [answer.citations[0].n]


def test_verified_citations_off_the_question_are_not_an_answer(searcher: HybridSearcher) -> None:
    # Faithful quotes (verified), about something else than what was asked.
    answer = _ask(
        searcher,
        "What is the estate's bank account number?",
        "The estate is insured for 2,900,000 pounds against fire and flood",
        query="estate insured fire flood",
    )
    [citation] = answer.citations
    assert citation.verified and answer.addresses(citation.n) is False
    assert answer.presentation == "not_an_answer"
    data = answer.to_dict(trace=False)
    assert data["presentation"] == "not_an_answer"
    assert "does not mention account number" in data["citations"][0]["relevance"]["reasons"]
    [part] = data["relevance"]["parts"]
    assert part["addressed_by"] == [] and part["kind"] == "identifier"
    assert part["nearest"]["why_not"]  # the sentence read that came nearest, and why not


def test_an_answer_to_one_part_of_two_is_partial(searcher: HybridSearcher) -> None:
    answer = _ask(
        searcher,
        "What is the annual rent of the east cottage, and who is its tenant?",
        "The annual rent is 14,400 pounds, payable monthly in advance",
    )
    assert answer.presentation == "partial"
    assert answer.relevance is not None and answer.relevance.addressed_parts == 1


def test_an_answer_without_a_verified_citation_is_unsupported_and_a_decline_declines(
    searcher: HybridSearcher,
) -> None:
    unsupported = _ask(searcher, "What is the annual rent?", "The rent is about 15,000 pounds")
    assert unsupported.presentation == "unsupported"
    declined = _ask(searcher, "What is the estate's VAT number?", "The documents do not say")
    assert declined.presentation == "declined"


def test_why_a_sentence_does_not_address_a_question_reads_as_english() -> None:
    text = "# Notes\n\nThe secret code of user 3 is CODE-3-1234abcd."
    [row] = sentences([Passage(1, "c1", text, "Notes of user 3")])
    asked = analyse("What is the secret code of user 3 in the Lisbon office?")
    judged = judge(asked.parts[0], row, asked.text)
    assert not judged.addresses
    assert "states an identifier: CODE-3" in judged.reasons()


# ── near misses: what the documents say of another subject, or of another thing ──
LATE_INTEREST = Passage(
    1, "c1", "Acme charges interest on late payments at 4% a year.", "Acme Hosting Contract"
)
BRIGHTLINE_FEES = Passage(
    2,
    "c2",
    "The annual fee of £96,500 is payable in advance. "
    "The platform is described in Schedule 1 of this agreement.",
    "Brightline Subscription Agreement",
)


def test_a_sentence_is_outdone_by_another_document_saying_more_of_another_subject() -> None:
    asked = analyse("What late-payment interest does Brightline charge?")
    part = asked.parts[0]
    read = sentences([LATE_INTEREST, BRIGHTLINE_FEES])
    acme, payable, _schedule = read
    plain = [(s, judge(part, s, asked.text)) for s in read]
    # Close in meaning, two of the five terms: on its own it would address the question.
    assert judge(part, payable, asked.text, similarity=0.5).addresses
    elsewhere = other_subject(plain, payable.title)
    assert (
        elsewhere is not None and elsewhere.text == acme.text and elsewhere.names == ("brightlin",)
    )
    judged = judge(part, payable, asked.text, similarity=0.5, elsewhere=elsewhere)
    assert not judged.addresses
    assert any("another document holds more of the question's terms" in r for r in judged.reasons())
    # The document that says it of another subject is no rival to its own sentences.
    assert other_subject(plain, acme.title) is None


def test_a_sentence_of_the_same_document_that_lacks_a_name_is_no_rival() -> None:
    """Within one document a name may be said in other words ("the island" for Cyprus)."""
    asked = analyse("Who led Richard's troops when Cyprus was conquered?")
    text = (
        "Richard then conquered the whole island, his troops being led by Guy de Lusignan."
        "\n\nCyprus was later sold to the Templars."
    )
    read = sentences([Passage(1, "c1", text, "Normans")])
    plain = [(s, judge(asked.parts[0], s, asked.text)) for s in read]
    assert plain[0][1].coverage >= 0.67 and plain[0][1].missing_names
    assert other_subject(plain, read[1].title) is None


def test_a_word_that_qualifies_the_value_asked_for_is_one_of_the_question_s_terms() -> None:
    """ "the *share* price": a price of anything else does not answer it."""
    asked = analyse("What is Corvid's share price?")
    [row] = sentences([Passage(1, "c1", "The fixed price for setting up is £412,000.", "Corvid")])
    judged = judge(asked.parts[0], row, asked.text, similarity=0.3)
    assert not judged.addresses and judged.coverage == 0.5


def test_a_quarter_written_in_words_is_the_quarter_s_code() -> None:
    asked = analyse("What revenue does the company expect for Q3 2025?")
    assert asked.parts[0].figures == frozenset()  # the 3 of Q3 is no figure to find
    text = "For the third quarter we expect revenue of between £50 million and £52 million."
    [row] = sentences([Passage(1, "c1", text, "Quarterly report 2025")])
    judged = judge(asked.parts[0], row, asked.text, similarity=0.6)
    assert judged.addresses and judged.found is not None


def test_a_count_counts_what_follows_how_many_not_the_name_that_owns_it() -> None:
    assert analyse("How many stores did Fennimore have?").parts[0].counted == ("stor",)
    assert analyse("How many named users does the licence include?").parts[0].counted == ("user",)
    # An amount is no count: "£350,000 for … stores".
    assert find("count", "A budget of £350,000 was set for the stores.", "", ("stor",)) is None
    assert find("count", "The estate ended the quarter with 112 stores.", "", ("stor",))


@pytest.mark.parametrize(
    "text",
    [
        "- Because the certificate is customer-managed, no credit is due.",  # a clause's opening
        "Stackwell Logistics Software offered £368,000.",  # an organisation
        "The figures exclude Acme's outage.",  # the name the question gives
        'The agreement starts on the "Effective Date".',  # a contract's defined term
        "Stackwell would host it in the United States.",  # a place
    ],
)
def test_names_that_are_no_person_s_do_not_answer_who(text: str) -> None:
    assert find("person", text, "Which Acme engineer let the certificate expire?") is None


def test_a_preposition_ends_the_thing_asked_for() -> None:
    assert asked_for("What was the net profit after tax in Q2?") == ("net", "profit")
    assert expected_kind("What was the net profit after tax in Q2?") == "money"
