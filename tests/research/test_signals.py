"""The signals a sentence is judged by (``relevance.judge``), as writers other than the
ones the model was built on write: names a passage is about, facts of a kind in the forms
people use, and how much of a question a sentence must hold."""

from __future__ import annotations

import pytest

from docuchat.research.kinds import Kind, expected_kind, find
from docuchat.research.questions import analyse
from docuchat.research.relevance import judge
from docuchat.research.sentences import Passage, sentences, stating

# ── names: the subject of a whole passage ──────────────────────────────────────
MAIL = (
    "From: Hannah Okafor <hannah@fennimore.example>\n"
    "To: Ravi Menon <ravi@wrenfield-freight.example>\n"
    "Subject: RE: delivery rates\n\n"
    "Hi Ravi,\n\n"
    "To confirm what we agreed: Saturday deliveries will be charged at £150 per drop."
)


def _saturday(passage: Passage) -> bool:
    asked = analyse("How much will Wrenfield charge for Saturday deliveries?")
    said = [s for s in sentences([passage]) if "£150" in s.text]
    return judge(asked.parts[0], said[0], asked.text).addresses


def test_a_name_in_a_passage_s_header_is_the_subject_of_its_sentences() -> None:
    assert _saturday(Passage(1, "c1", MAIL, "RE: delivery rates"))


def test_a_name_only_in_another_sentence_of_the_passage_is_not_its_subject() -> None:
    """A row or a sentence names its own subject: "Wrenfield" beside it is no header."""
    text = (
        "Wrenfield delivers to the northern stores.\n\n"
        "Harlow delivers to the southern stores. "
        "Saturday deliveries will be charged at £150 per drop."
    )
    assert not _saturday(Passage(1, "c1", text, "Delivery rates"))


def test_a_forwarded_message_s_header_names_the_subject_of_what_follows_it() -> None:
    text = (
        "Thanks, we will look into it.\n\n"
        "-----Original Message-----\n"
        "From: Shona McAteer <shona@wrenfield-freight.example>\n"
        "Subject: Saturday rates\n\n"
        "Saturday deliveries will be charged at £150 per drop."
    )
    assert _saturday(Passage(1, "c1", text, "RE: Saturday rates"))
    # a list of statuses is no header: "Store stock service: green"
    listed = "Store stock service: green, live\nLocker pilot go-live: Wrenfield, amber\n\n"
    assert not _saturday(Passage(1, "c1", listed + MAIL.split("\n\n", 1)[1], "Status"))


def test_a_passage_that_never_names_the_subject_does_not_address_it() -> None:
    assert not _saturday(Passage(1, "c1", MAIL.replace("wrenfield-freight", "harlow"), "Rates"))


# ── kinds: the forms other writers state a fact of a kind in ──────────────────
@pytest.mark.parametrize(
    ("kind", "text", "found"),
    [
        ("money", "The contract is worth 1.2 million pounds.", "1.2 million pounds"),
        ("money", "York's sales were 12% above plan.", None),  # a share of nothing named
        ("duration", "Faults are fixed within 4 hrs.", "4 hrs"),
        ("duration", "Tickets are answered within 30 mins.", "30 mins"),
        ("duration", "Cover is restored within 48h.", "48h"),
        ("duration", "Orders placed by noon arrive the next working day.", "next working day"),
        ("duration", "The fleet is inspected quarterly.", "quarterly"),
        ("duration", "The filters are changed every month.", "every month"),
        ("date", "The rate applies from 01/08/2025.", "01/08/2025"),
        ("date", "Signed on 1.8.2025 by both parties.", "1.8.2025"),
        # as contracts write a number twice, in words and in figures, or in compound words
        ("duration", "Invoices are paid within forty-five (45) days.", "forty-five (45) days"),
        ("duration", "Notify us within twenty-four (24) hours.", "twenty-four (24) hours"),
        ("duration", "Either party may end it on 2 (two) months' notice.", "2 (two) months"),
        ("duration", "Refunds take forty-five days.", "forty-five days"),
    ],
)
def test_a_fact_of_a_kind_as_other_writers_state_it(
    kind: Kind, text: str, found: str | None
) -> None:
    fact = find(kind, text)
    assert (fact.text if fact else None) == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("The depot holds sixty-four buses.", "sixty-four"),
        ("Buses: 212.", "212"),  # what is counted before the number
        ("People & Culture, version 4.2", None),  # a version is no count
        ("Number of buses | 212", "212"),
        ("Buses first ran in 1998.", None),  # a year is no count
    ],
)
def test_a_count_in_words_or_after_what_it_counts(text: str, found: str | None) -> None:
    fact = find("count", text, "How many buses are there?", ("bus",))
    assert (fact.text if fact else None) == found


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # an increment is stated as an amount or as a share: "35%" answers it
        ("How much extra does the fitter charge for night work?", "quantity"),
        ("How much does the fitter charge for night work?", "money"),
        ("How often are the buses serviced?", "duration"),
        ("What is the term for a sheet of prices?", None),  # a word, not a duration
        ("What is the cancellation window?", "duration"),
        ("What is the contract value?", "quantity"),
        ("How far in advance must a site visit be booked?", "duration"),
        # the noun asked for, not a verb of money after it ("voted against ... the pay")
        ("Which director voted against raising the on-call pay?", "person"),
        ("Which IBAN should we pay the invoice into?", "identifier"),
        # a share of an amount is stated as an amount or as a share ("50% on delivery")
        ("How much of the fixed price is paid on delivery?", "quantity"),
        # "no longer" compares nothing, and "when" here starts a clause, not the question
        ("What is deducted when I return a pass I no longer need?", None),
    ],
)
def test_the_kind_a_question_asks_for_in_other_words(question: str, kind: Kind | None) -> None:
    assert expected_kind(question) == kind


def test_an_increment_stated_as_a_share_answers_how_much_extra() -> None:
    asked = analyse("How much extra does Halden charge for night work?")
    text = "Service | Rate (GBP) | Basis\nNight work surcharge | 35% | on the day rate"
    [row] = sentences([Passage(1, "c1", text, "Halden price schedule")])
    judged = judge(asked.parts[0], row, asked.text, stating(row, {row.id: row}))
    assert judged.addresses and judged.found is not None and judged.found.text == "35%"


def test_either_or_not_is_no_question_of_what_is_not_so() -> None:
    # "or not" asks of both cases; a question of what is not so is negated.
    assert not analyse("What are the core hours, working from home or not?").parts[0].negated
    assert analyse("Which expenses are not reimbursed?").parts[0].negated
