"""SQLite schema migrations: named functions, applied in order on open, recorded in a table.

Add a migration by appending a function decorated with ``@migration``; never
edit or reorder one that has shipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

Migration = Callable[[sqlite3.Connection], None]

# How the full-text index splits and stems words (m002); highlighting must use the same.
TOKENIZER = "porter unicode61 remove_diacritics 2"
MIGRATIONS: list[Migration] = []


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append(fn)
    return fn


def apply_migrations(db: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded, each in its own transaction; return their names."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    done = {name for (name,) in db.execute("SELECT name FROM migrations")}
    applied = []
    for fn in MIGRATIONS:
        if fn.__name__ in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        # Another process opening the file at the same moment may have applied it meanwhile.
        if db.execute("SELECT 1 FROM migrations WHERE name = ?", (fn.__name__,)).fetchone():
            db.execute("COMMIT")
            continue
        try:
            fn(db)
            db.execute(
                "INSERT INTO migrations (name, applied_at) VALUES (?, ?)",
                (fn.__name__, datetime.now(UTC).isoformat(timespec="seconds")),
            )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        applied.append(fn.__name__)
    return applied


@migration
def m001_documents_and_chunks(db: sqlite3.Connection) -> None:
    # AUTOINCREMENT: keys are never reused, so a key held in an in-memory
    # vector matrix can only ever name the row it was loaded from.
    db.execute(
        """
        CREATE TABLE documents (
            key INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            owner TEXT NOT NULL,
            title TEXT NOT NULL,
            source TEXT,
            media_type TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            page_count INTEGER NOT NULL,
            chunk_count INTEGER NOT NULL,
            char_count INTEGER NOT NULL,
            text TEXT NOT NULL,
            metadata TEXT NOT NULL,
            added_at TEXT NOT NULL,
            UNIQUE (owner, content_hash)
        )
        """
    )
    db.execute(
        "CREATE UNIQUE INDEX documents_owner_source ON documents (owner, source)"
        " WHERE source IS NOT NULL"
    )
    db.execute(
        """
        CREATE TABLE chunks (
            key INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL,
            owner TEXT NOT NULL,
            doc_key INTEGER NOT NULL REFERENCES documents (key) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            page INTEGER NOT NULL,
            page_end INTEGER NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            text TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            UNIQUE (owner, id)
        )
        """
    )
    db.execute("CREATE INDEX chunks_doc ON chunks (doc_key)")
    db.execute("CREATE INDEX chunks_owner ON chunks (owner)")
    db.execute("CREATE INDEX chunks_owner_text ON chunks (owner, text_hash)")


@migration
def m002_full_text_search(db: sqlite3.Connection) -> None:
    # External content: the index stores no second copy of the text; the store
    # adds and deletes index rows itself, in the same transaction as the chunks.
    db.execute(
        "CREATE VIEW chunks_fts_content AS SELECT c.key AS key, d.title AS title, c.text AS text"
        " FROM chunks c JOIN documents d ON d.key = c.doc_key"
    )
    db.execute(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5(title, text, content='chunks_fts_content',"
        f" content_rowid='key', tokenize='{TOKENIZER}')"
    )


@migration
def m003_embeddings(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE embeddings (
            owner TEXT NOT NULL,
            model TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            UNIQUE (owner, model, text_hash)
        )
        """
    )
    # Bumped by every write that changes an owner's chunks or vectors, so
    # in-memory vector matrices (also in other processes) know when to reload.
    db.execute(
        "CREATE TABLE owner_generations (owner TEXT PRIMARY KEY, generation INTEGER NOT NULL)"
        " WITHOUT ROWID"
    )


@migration
def m004_users_and_api_keys(db: sqlite3.Connection) -> None:
    # A key is "dc_<key_id>_<secret>": the id finds the row, only the secret's SHA-256 is kept.
    db.execute(
        "CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
        " created_at TEXT NOT NULL) WITHOUT ROWID"
    )
    db.execute(
        """
        CREATE TABLE api_keys (
            key_id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            secret_sha256 TEXT NOT NULL,
            created_at TEXT NOT NULL
        ) WITHOUT ROWID
        """
    )
    db.execute("CREATE INDEX api_keys_user ON api_keys (user_id)")


@migration
def m005_conversations_and_turns(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE conversations (
            key INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            owner TEXT NOT NULL,
            title TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX conversations_owner ON conversations (owner, updated_at)")
    db.execute(
        """
        CREATE TABLE turns (
            key INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_key INTEGER NOT NULL REFERENCES conversations (key) ON DELETE CASCADE,
            question TEXT NOT NULL,
            answer TEXT NOT NULL,
            citations TEXT NOT NULL,
            outcome TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX turns_conversation ON turns (conversation_key)")


@migration
def m006_upload_jobs(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE upload_jobs (
            id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            status TEXT NOT NULL,
            files TEXT NOT NULL,
            done INTEGER NOT NULL,
            documents TEXT NOT NULL,
            skipped TEXT NOT NULL,
            error TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        ) WITHOUT ROWID
        """
    )


@migration
def m007_embeddings_by_owner_and_model(db: sqlite3.Connection) -> None:
    # Rows of one owner and model in insertion order: loading them into memory
    # reads the table front to back instead of in text-hash order (10x faster).
    db.execute("CREATE INDEX embeddings_owner_model ON embeddings (owner, model)")


@migration
def m008_text_generations(db: sqlite3.Connection) -> None:
    # Bumped only by writes that change an owner's chunk texts, so in-memory BM25
    # indexes outlive the many embedding batches that follow an upload.
    db.execute(
        "ALTER TABLE owner_generations ADD COLUMN text_generation INTEGER NOT NULL DEFAULT 0"
    )


@migration
def m009_chunk_page_breaks(db: sqlite3.Connection) -> None:
    # JSON [[offset, page], ...]: where later pages begin inside a chunk. Chunks
    # stored before this have none and report their first page throughout.
    db.execute("ALTER TABLE chunks ADD COLUMN page_breaks TEXT NOT NULL DEFAULT '[]'")


@migration
def m010_locations_and_originals(db: sqlite3.Connection) -> None:
    # Each chunk's places (slides, sheet cells, sections) as JSON [[start, end, place], ...];
    # each page's word boxes, compact (docuchat.corpus.locations.encode_boxes); the file itself.
    db.execute("ALTER TABLE chunks ADD COLUMN places TEXT NOT NULL DEFAULT '[]'")
    db.execute(
        """
        CREATE TABLE page_boxes (
            doc_key INTEGER NOT NULL REFERENCES documents (key) ON DELETE CASCADE,
            page INTEGER NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            boxes BLOB NOT NULL,
            PRIMARY KEY (doc_key, page)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        "CREATE TABLE document_files (doc_key INTEGER PRIMARY KEY"
        " REFERENCES documents (key) ON DELETE CASCADE, data BLOB NOT NULL)"
    )


@migration
def m011_processes_upload_queue_and_cancels(db: sqlite3.Connection) -> None:
    # A job's claim: the process holding it, the token its writes must match, how many
    # times it was claimed; and the bytes it holds until it ends (what bounds the queue).
    for column in (
        "worker TEXT",
        "claim TEXT",
        "attempts INTEGER NOT NULL DEFAULT 0",
        "bytes INTEGER NOT NULL DEFAULT 0",
    ):
        db.execute(f"ALTER TABLE upload_jobs ADD COLUMN {column}")
    # The queue's claims and sweeps read only the jobs not yet ended, oldest first.
    db.execute(
        "CREATE INDEX upload_jobs_open ON upload_jobs (created_at)"
        " WHERE status IN ('receiving', 'queued', 'running')"
    )
    db.execute(
        """
        CREATE TABLE upload_parts (
            key INTEGER PRIMARY KEY,
            job_id TEXT NOT NULL REFERENCES upload_jobs (id) ON DELETE CASCADE,
            file INTEGER NOT NULL,
            part INTEGER NOT NULL,
            data BLOB NOT NULL,
            UNIQUE (job_id, file, part)
        )
        """
    )
    # seen_at and created_at are Unix times: the processes of one SQLite file share a clock.
    db.execute(
        "CREATE TABLE processes (id TEXT PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL,"
        " ingests INTEGER NOT NULL, seen_at REAL NOT NULL) WITHOUT ROWID"
    )
    # AUTOINCREMENT: a requester waiting on a key never reads another request's answer.
    db.execute(
        """
        CREATE TABLE cancel_requests (
            key INTEGER PRIMARY KEY AUTOINCREMENT,
            process TEXT NOT NULL,
            run_id TEXT NOT NULL,
            owner TEXT NOT NULL,
            reason TEXT NOT NULL,
            answer INTEGER,
            created_at REAL NOT NULL
        )
        """
    )
    db.execute(
        "CREATE INDEX cancel_requests_pending ON cancel_requests (process) WHERE answer IS NULL"
    )


# Before vectors were keyed by vector space (Embedder.space), each precision of
# all-MiniLM-L6-v2 kept its own: the names they were stored under, most precise first.
MINILM_SPACE = "all-MiniLM-L6-v2"
MINILM_PRECISIONS = ("all-MiniLM-L6-v2-bf16", "all-MiniLM-L6-v2-onnx-int8")


@migration
def m012_embeddings_by_vector_space(db: sqlite3.Connection) -> None:
    # One space for the three precisions: each text keeps its most precise vector.
    for name in MINILM_PRECISIONS:
        db.execute(
            "UPDATE OR IGNORE embeddings SET model = ? WHERE model = ?", (MINILM_SPACE, name)
        )
        db.execute("DELETE FROM embeddings WHERE model = ?", (name,))
    # Vector matrices held in memory (also by other processes) reload.
    db.execute("UPDATE owner_generations SET generation = generation + 1")


@migration
def m013_turn_steps(db: sqlite3.Connection) -> None:
    # JSON [{tool_name, tool_input, status, message, detail, ...}, ...]: each turn's tool
    # steps as they were shown. Turns saved before this have none.
    db.execute("ALTER TABLE turns ADD COLUMN steps TEXT NOT NULL DEFAULT '[]'")


@migration
def m014_turn_mode_reason(db: sqlite3.Connection) -> None:
    # Why a turn was answered in another mode than asked (a model below
    # min_model_for_agent), so a reopened conversation says so again. Older turns: "".
    db.execute("ALTER TABLE turns ADD COLUMN mode_reason TEXT NOT NULL DEFAULT ''")
