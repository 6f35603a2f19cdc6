"""Words of one meaning meet: a question that says "commence" or "lose" is answered by the
sentence that says "started" or "lost" (WordNet's commonest senses, ``research.lexicon``),
and a word of another meaning still does not ("end" is not "start")."""

from __future__ import annotations

from pathlib import Path

import pytest

from docuchat.research.lexicon import TABLES, Lexicon, concept
from docuchat.research.questions import analyse
from docuchat.research.words import stems

from .conftest import Ask

HOSTING = """# Hosting Agreement with Acme

The agreement was signed on 19 February 2024. The hosting service started on 1 March 2024 \
and runs for three years. Daily backups are retained for 35 days.
"""
INCIDENT = """# Incident report INC-22

The payment gateway was down for two hours. Estimated revenue lost: £61,000.
"""


@pytest.fixture
def documents() -> dict[str, str]:
    return {"hosting.md": HOSTING, "incident.md": INCIDENT}


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("When did the hosting service commence?", "started on 1 March 2024"),
        ("When did the hosting service begin?", "started on 1 March 2024"),
        ("How much revenue did we lose in the payment incident?", "£61,000"),
    ],
)
def test_a_sentence_in_other_words_of_one_sense_answers(ask: Ask, question: str, said: str) -> None:
    answer = ask(question)
    assert answer.presented and not answer.abstained
    assert said in answer.answer
    assert all(c.verified for c in answer.citations)


def test_a_word_of_another_sense_still_does_not_answer(ask: Ask) -> None:
    answer = ask("When does the hosting service end?")
    assert not answer.presented


@pytest.mark.parametrize(
    ("words", "one"),
    [
        (("commence", "commences", "start", "started", "begin", "began"), "begin"),
        (("took", "taken", "takes", "take"), "take"),
        (("lost", "lose", "losing"), "lose"),
        (("retained", "retains", "retain"), "retain"),
    ],
)
def test_forms_and_words_of_one_commonest_sense_are_one_word(
    words: tuple[str, ...], one: str
) -> None:
    assert {concept(w) for w in words} == {one}


@pytest.mark.parametrize(
    ("word", "one"),
    [
        ("acme", "acme"),  # WordNet's "acme" (a peak) was never seen tagged: a name here
        ("kestrel", "kestrel"),
        ("Started", "Started"),  # only lower-case words; the callers fold case first
        ("inc22", "inc22"),
        ("led", "led"),  # "LED" folded, not the past of "lead"
        ("pm", "pm"),  # "PM", not WordNet's "pm" (a post-mortem)
        ("terminated", "end"),
        ("ended", "end"),
    ],
)
def test_names_codes_acronyms_and_other_senses_stay_apart(word: str, one: str) -> None:
    assert concept(word) == one


def test_the_question_and_the_sentence_are_compared_by_one_sense() -> None:
    part = analyse("When did the hosting service commence?").parts[0]
    assert set(part.terms) - stems("The hosting service started on 1 March 2024.") == set()


def test_the_commonest_sense_of_the_commonest_part_of_speech_wins(tmp_path: Path) -> None:
    (tmp_path / "senses.tsv").write_text(
        "# lemma, part of speech, count, that sense's lemma\n"
        "run\tn\t3\ttest\nrun\tv\t9\tgo\ngo\tv\t40\t\ntest\tn\t5\t\n",
        encoding="utf-8",
    )
    (tmp_path / "inflections.tsv").write_text("ran\tv\trun\nwent\tv\tgo\n", encoding="utf-8")
    lexicon = Lexicon.read(tmp_path)
    assert [lexicon.concept(w) for w in ("run", "runs", "ran", "went", "tests")] == [
        "go",
        "go",
        "go",
        "go",
        "test",
    ]
    assert lexicon.concept("unknown") == "unknown"


def test_the_tables_carry_wordnet_s_licence() -> None:
    licence = (TABLES / "LICENSE.md").read_text(encoding="utf-8")
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in licence
    rows = (TABLES / "senses.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("# from WordNet 3.0") and len(rows) > 10_000
