"""How the PostgreSQL store cuts text into words before PostgreSQL stems them.

Python splits and folds, PostgreSQL only stems (with a snowball dictionary,
see ``postgres_schema.TEXT_CONFIG``). Words are what SQLite's ``unicode61``
tokenizer sees: runs of letters and digits, case-folded, diacritics removed.
PostgreSQL's own parser would keep ``3.14``, ``a-b`` or ``x@y.org`` whole,
which the query side, built from plain words, could never match. The same
functions serve documents, queries and highlighting, so all three agree.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from docuchat.store.fts_query import query_terms

_WORD = re.compile(r"[^\W_]+")  # fts_query's word pattern: the query side splits the same way


def fold(word: str) -> str:
    """Case-folded, with combining marks (accents) removed: ``Crème`` becomes ``creme``."""
    decomposed = unicodedata.normalize("NFD", word.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def indexed_words(title: str, text: str) -> str:
    """A chunk's words as PostgreSQL should stem them: its document's title, then its text."""
    return " ".join(fold(word) for word in _WORD.findall(f"{title}\n{text}"))


def query_words(text: str) -> str:
    """The words of a user query (stopwords dropped, bounded), folded; empty if none."""
    return " ".join(fold(term) for term in query_terms(text))


def word_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """Each word of ``text``: its offsets and its folded form."""
    for match in _WORD.finditer(text):
        yield match.start(), match.end(), fold(match.group())
