"""Any query text is safe: it never raises and never becomes FTS5 syntax."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docuchat.store import Store
from docuchat.store.fts_query import MAX_TERMS, match_expression, query_terms

from .conftest import BACKENDS, make_backend, make_doc

_EXPRESSION = re.compile(r'"[^\W_]+"( OR "[^\W_]+")*')
# Text built from FTS5's own syntax, so generated queries hit the parser's corners.
_SYNTAX = st.sampled_from(
    ['"', "'", "*", "-", "+", "^", ":", "(", ")", "{", "}", "NEAR", "NEAR(", "AND", "OR", "NOT",
     "title:", "text:", "chunks_fts", "rank", ",", ".", "\x00", "é", "٣", "_", " ", "\n"]
)  # fmt: skip
_HOSTILE_TEXT = st.lists(st.one_of(_SYNTAX, st.text(max_size=8)), max_size=12).map("".join)


@pytest.fixture(scope="module", params=BACKENDS)
def corpus(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Store, dict[str, str]]]:
    store = make_backend(request.param, tmp_path_factory.mktemp("fts"), request).open()
    docs = {
        "glacier": make_doc("Glaciers are retreating across the Alps.", title="Ice"),
        "volcano": make_doc("Volcanoes erupt when magma rises.", title="Fire"),
        "dessert": make_doc("Zoë ordered crème brûlée at the café.", title="Menu"),
        "syntax": make_doc("Use NEAR and title to search; the rank is fine.", title="Help"),
    }
    ids = {name: doc.add(store, "ann").document.id for name, doc in docs.items()}
    yield store, ids
    store.close()


@given(_HOSTILE_TEXT)
def test_expression_is_only_quoted_words_joined_by_or(text: str) -> None:
    expression = match_expression(text)
    assert expression is None or _EXPRESSION.fullmatch(expression)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_HOSTILE_TEXT, st.text()))
def test_search_never_raises(corpus: tuple[Store, dict[str, str]], text: str) -> None:
    store, _ = corpus
    hits = store.search_bm25("ann", text)
    assert all(hit.score > float("-inf") for hit in hits)
    store.match_spans("ann", text, [])


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("-glaciers", {"glacier"}),  # not a negation
        ("NOT glaciers", {"glacier"}),
        ("glaciers AND zebras", {"glacier"}),  # a bag of words, not a conjunction
        ('"glaciers retreating', {"glacier"}),  # unbalanced quote
        ("glaciers) OR (", {"glacier"}),
        ("title:magma", {"volcano", "syntax"}),  # not a column filter: both words count
        ("fire", {"volcano"}),  # titles are searched too
        ("NEAR(glaciers magma)", {"glacier", "volcano", "syntax"}),
        ("glac*", set()),  # not a prefix query
        ("^volcanoes", {"volcano"}),
        ("erupting volcano", {"volcano"}),  # porter stemming
        ("creme brulee cafe zoe", {"dessert"}),  # diacritics removed
        ("chunks_fts:rank", {"syntax"}),
        ("'; DROP TABLE chunks; --", set()),
        ("", set()),
        ("  !!! ... ", set()),
        ("the", {"glacier", "dessert", "syntax"}),  # only stopwords: they are kept
    ],
)
def test_query_words_keep_their_plain_meaning(
    corpus: tuple[Store, dict[str, str]], query: str, expected: set[str]
) -> None:
    store, ids = corpus
    names = {doc_id: name for name, doc_id in ids.items()}
    assert {names[hit.doc_id] for hit in store.search_bm25("ann", query, k=10)} == expected


def test_huge_query_is_cut_to_a_bounded_number_of_terms(
    corpus: tuple[Store, dict[str, str]],
) -> None:
    store, ids = corpus
    query = " ".join(f"w{i}" for i in range(100_000)) + " magma"
    assert len(query_terms(query)) == MAX_TERMS
    assert store.search_bm25("ann", "magma " + query)[0].doc_id == ids["volcano"]


def test_stopwords_are_dropped_when_other_words_remain() -> None:
    assert query_terms("The Effect of THE drug on the heart") == ["effect", "drug", "heart"]
    assert query_terms("to be or not to be") == ["to", "be", "or", "not"]
