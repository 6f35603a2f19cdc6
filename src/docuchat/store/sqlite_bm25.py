"""In-memory BM25 indexes read out of the SQLite file's FTS5 index, and query words as its terms.

The tokens come from FTS5 itself (through ``fts5vocab`` tables), never from a
second tokenizer, so the in-memory index holds exactly the terms, frequencies
and lengths that FTS5's ``bm25()`` sees.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from docuchat.store.bm25_index import BM25Index
from docuchat.store.migrations import TOKENIZER

# An owner holding at least this share of the file's chunks is read from the main
# index (one pass over every token in the file); a smaller one is tokenised anew.
READ_MAIN_INDEX_SHARE = 1 / 3
_COLUMNS = ("title", "text")  # of chunks_fts, in order
_TERM_CACHE_SIZE = 65_536
_terms_of_word: dict[str, tuple[str, ...]] = {}  # the tokenizer never changes: one cache


def create_scratch_tables(db: sqlite3.Connection) -> None:
    """Temporary tables of this connection: vocabularies to read tokens from, and a
    scratch index (same tokenizer as the main one) for query words and highlights."""
    db.execute("CREATE TEMP TABLE scratch_text (key INTEGER PRIMARY KEY, title TEXT, text TEXT)")
    db.execute(
        "CREATE VIRTUAL TABLE temp.scratch_fts USING fts5(title, text, content='scratch_text',"
        f" content_rowid='key', tokenize='{TOKENIZER}')"
    )
    db.execute(
        "CREATE VIRTUAL TABLE temp.scratch_vocab USING fts5vocab(temp, scratch_fts, instance)"
    )
    db.execute("CREATE VIRTUAL TABLE temp.chunks_vocab USING fts5vocab(main, chunks_fts, instance)")


def fill_scratch(db: sqlite3.Connection, rows: Sequence[tuple[int, str, str]]) -> None:
    """Index ``(key, title, text)`` rows in the scratch index (emptied first)."""
    clear_scratch(db)
    db.executemany("INSERT INTO scratch_text (key, title, text) VALUES (?, ?, ?)", rows)
    db.execute(
        "INSERT INTO scratch_fts (rowid, title, text) SELECT key, title, text FROM scratch_text"
    )


def clear_scratch(db: sqlite3.Connection) -> None:
    db.execute("INSERT INTO scratch_fts (scratch_fts) VALUES ('delete-all')")
    db.execute("DELETE FROM scratch_text")


def query_terms_of(db: sqlite3.Connection, words: Sequence[str]) -> list[str] | None:
    """Each word as the one FTS5 term it becomes (stemmed, folded); None if some word
    becomes no term or several (FTS5 would take it as a phrase)."""
    missing = [word for word in dict.fromkeys(words) if word not in _terms_of_word]
    if missing:
        fill_scratch(db, [(i, "", word) for i, word in enumerate(missing)])
        tokens: list[list[tuple[int, str]]] = [[] for _ in missing]
        for term, row, offset in db.execute("SELECT term, doc, offset FROM scratch_vocab"):
            tokens[row].append((offset, term))
        clear_scratch(db)
        if len(_terms_of_word) + len(missing) > _TERM_CACHE_SIZE:
            _terms_of_word.clear()
        for word, found in zip(missing, tokens, strict=True):
            _terms_of_word[word] = tuple(term for _, term in sorted(found))
    terms = [_terms_of_word[word] for word in words]
    return [only for (only,) in terms] if all(len(t) == 1 for t in terms) else None


def load_bm25_index(
    db: sqlite3.Connection, owner: str, generation: int, weights: Sequence[float]
) -> BM25Index:
    """The owner's chunks as a BM25 index; ``weights`` are the (title, text) column weights."""
    rows = db.execute(
        "SELECT c.key, c.doc_key, c.id, d.id FROM chunks c JOIN documents d ON d.key = c.doc_key"
        " WHERE c.owner = ? ORDER BY c.key",
        (owner,),
    ).fetchall()
    chunk_keys = np.array([row[0] for row in rows], dtype=np.int64)
    (total,) = db.execute("SELECT COUNT(*) FROM chunks").fetchone()
    vocab = "chunks_vocab"
    if len(rows) < READ_MAIN_INDEX_SHARE * total:
        vocab = "scratch_vocab"
        clear_scratch(db)
        db.execute(
            "INSERT INTO scratch_text (key, title, text) SELECT c.key, d.title, c.text"
            " FROM chunks c JOIN documents d ON d.key = c.doc_key WHERE c.owner = ?",
            (owner,),
        )
        db.execute(
            "INSERT INTO scratch_fts (rowid, title, text) SELECT key, title, text FROM scratch_text"
        )
    # One row per term: its instances as "key * columns + column", parsed in C by NumPy.
    column = " ".join(f"WHEN {name!r} THEN {i}" for i, name in enumerate(_COLUMNS))
    terms, parts = [], []
    for term, instances in db.execute(
        f"SELECT term, group_concat(doc * {len(_COLUMNS)} + CASE col {column} END)"
        f" FROM {vocab} GROUP BY term"
    ):
        terms.append(term)
        parts.append(np.fromstring(instances, dtype=np.int64, sep=","))
    if vocab == "scratch_vocab":
        clear_scratch(db)
    counts = np.array([len(part) for part in parts], dtype=np.int64)
    coded = np.concatenate(parts) if parts else np.empty(0, np.int64)
    term_of = np.repeat(np.arange(len(terms), dtype=np.int64), counts)
    key_of, column_of = np.divmod(coded, len(_COLUMNS))
    mine = np.isin(key_of, chunk_keys)  # the main index holds every owner's chunks
    return BM25Index.build(
        generation,
        chunk_keys,
        np.array([row[1] for row in rows], dtype=np.int64),
        [row[2] for row in rows],
        [row[3] for row in rows],
        terms,
        (term_of[mine], key_of[mine], np.asarray(weights, dtype=np.float64)[column_of[mine]]),
    )
