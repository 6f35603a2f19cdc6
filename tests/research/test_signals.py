"""The signals a sentence is judged by (``relevance.judge``), as writers other than the
ones the model was built on write: names a passage is about, facts of a kind in the forms
people use, and how much of a question a sentence must hold."""

from __future__ import annotations

from docuchat.research.questions import analyse
from docuchat.research.relevance import judge
from docuchat.research.sentences import Passage, sentences

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
    said = [s for s in sentences([passage]) if "Saturday" in s.text]
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


def test_a_passage_that_never_names_the_subject_does_not_address_it() -> None:
    assert not _saturday(Passage(1, "c1", MAIL.replace("wrenfield-freight", "harlow"), "Rates"))
