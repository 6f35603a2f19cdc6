"""Snippets: a window around the matched words, on one line, with highlight offsets."""

from __future__ import annotations

from docuchat.search import make_snippet

FILLER = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 8
TEXT = FILLER + "The zebra crossed the\nroad near the river bank. " + FILLER


def _span(word: str, text: str = TEXT) -> tuple[int, int]:
    start = text.index(word)
    return start, start + len(word)


def test_window_shows_the_matched_words_and_highlights_them() -> None:
    snippet = make_snippet(TEXT, [_span("zebra"), _span("river")], width=120)

    assert snippet.text.startswith("…") and snippet.text.endswith("…")
    assert [snippet.text[s:e] for s, e in snippet.highlights] == ["zebra", "river"]
    assert "crossed the road" in snippet.text  # one line
    assert snippet.marked("[", "]").count("[") == 2
    assert "[zebra] crossed" in snippet.marked("[", "]")
    assert len(snippet.text) <= 120 + 2 * 24


def test_window_prefers_more_distinct_words_over_repeats() -> None:
    text = "cell " * 30 + FILLER + "cell growth factor " + FILLER
    late = text.index("cell growth")
    spans = [(i * 5, i * 5 + 4) for i in range(30)]
    spans += [(late, late + 4), _span("growth", text), _span("factor", text)]
    snippet = make_snippet(text, spans, width=100)
    assert {snippet.text[s:e] for s, e in snippet.highlights} == {"cell", "growth", "factor"}


def test_edges_do_not_cut_words() -> None:
    snippet = make_snippet(TEXT, [_span("zebra")], width=80)
    words = set(TEXT.split())
    inner = snippet.text.strip("…").split()
    assert inner[0] in words and inner[-1] in words


def test_short_text_is_whole_and_no_match_gives_the_start() -> None:
    assert make_snippet("Short text.", [(6, 10)]).marked() == "Short **text**."
    plain = make_snippet(TEXT, [], width=60)
    assert plain.highlights == () and TEXT.startswith(plain.text.rstrip("…"))


def test_spans_outside_the_text_are_ignored() -> None:
    assert make_snippet("abc", [(1, 2), (2, 9), (-1, 1)]).highlights == ((1, 2),)
