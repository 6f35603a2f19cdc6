"""The database file: WAL, migrations recorded and applied once, clear errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from docuchat.errors import StoreError
from docuchat.store import SQLiteStore, open_store
from docuchat.store.migrations import MIGRATIONS

from .conftest import make_doc


def test_new_file_gets_wal_and_every_migration_recorded_once(db_path: Path) -> None:
    first = SQLiteStore(db_path)
    first.close()
    again = SQLiteStore(db_path)
    again.close()

    names = [fn.__name__ for fn in MIGRATIONS]
    assert first.applied_migrations == names
    assert again.applied_migrations == []
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert [row[0] for row in db.execute("SELECT name FROM migrations ORDER BY name")] == names


def test_data_survives_reopening(db_path: Path) -> None:
    store = SQLiteStore(db_path)
    record = make_doc("Tides follow the moon.").add(store, "ann").document
    store.close()

    reopened = open_store(db_path)
    assert reopened.get_document("ann", record.id) == record
    assert reopened.search_bm25("ann", "moon")[0].doc_id == record.id
    reopened.close()


def test_two_stores_on_one_file_see_each_others_writes(db_path: Path) -> None:
    writer, reader = SQLiteStore(db_path), SQLiteStore(db_path)
    record = make_doc("Deserts are dry.").add(writer, "ann").document
    assert reader.search_bm25("ann", "deserts")[0].doc_id == record.id
    writer.close()
    reader.close()


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match="cannot open the database"):
        SQLiteStore(path)
    assert path.read_text().startswith("these are my notes")
