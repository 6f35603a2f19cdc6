"""PostgreSQL schema migrations: named functions, applied in order on open, recorded in a table.

Add a migration by appending a function decorated with ``@migration``; never
edit or reorder one that has shipped. Stores opening the same database at
once (several workers starting) take turns under an advisory lock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import sql

from docuchat.store.migrations import MINILM_PRECISIONS, MINILM_SPACE

Migration = Callable[[psycopg.Connection[Any]], None]

# The text search configuration every document, query and highlight is stemmed with (m001).
TEXT_CONFIG = "docuchat_english"
# Any fixed number: the advisory lock that serialises concurrent migrators of one database.
_MIGRATION_LOCK = 0x646F63756368
MIGRATIONS: list[Migration] = []


def hnsw_index(model: str) -> str:
    """The name of the partial HNSW index of one vector space's vectors."""
    return "embeddings_hnsw_" + hashlib.blake2b(model.encode(), digest_size=8).hexdigest()


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append(fn)
    return fn


def apply_migrations(conn: psycopg.Connection[Any]) -> list[str]:
    """Apply the migrations not yet recorded, each in its own transaction; return their names.

    ``conn`` must be in autocommit mode (each migration opens its own transaction).
    """
    conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS migrations"
            " (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {name for (name,) in conn.execute("SELECT name FROM migrations")}
        applied = []
        for fn in MIGRATIONS:
            if fn.__name__ in done:
                continue
            with conn.transaction():
                fn(conn)
                conn.execute("INSERT INTO migrations (name) VALUES (%s)", (fn.__name__,))
            applied.append(fn.__name__)
        return applied
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))


@migration
def m001_vector_extension_and_text_search(conn: psycopg.Connection[Any]) -> None:
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    # Snowball stemming without a stopword list: every word is indexed and counts
    # towards a chunk's length, as in SQLite; queries drop stopwords themselves.
    conn.execute(
        "CREATE TEXT SEARCH DICTIONARY docuchat_stem (TEMPLATE = snowball, Language = english)"
    )
    conn.execute(f"CREATE TEXT SEARCH CONFIGURATION {TEXT_CONFIG} (PARSER = default)")
    # The token types that text made of letters, digits and spaces parses into
    # (postgres_words hands PostgreSQL nothing else).
    conn.execute(
        f"ALTER TEXT SEARCH CONFIGURATION {TEXT_CONFIG}"
        " ADD MAPPING FOR asciiword, word, numword, uint, sfloat WITH docuchat_stem"
    )


@migration
def m002_documents_and_chunks(conn: psycopg.Connection[Any]) -> None:
    # Identity keys are never reused: a key read by a search names the row it was read from.
    conn.execute(
        """
        CREATE TABLE documents (
            key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text NOT NULL UNIQUE,
            owner text NOT NULL,
            title text NOT NULL,
            source text,
            media_type text NOT NULL,
            content_hash text NOT NULL,
            page_count integer NOT NULL,
            chunk_count integer NOT NULL,
            char_count integer NOT NULL,
            text text NOT NULL,
            metadata jsonb NOT NULL,
            added_at timestamptz NOT NULL,
            UNIQUE (owner, content_hash)
        )
        """
    )
    conn.execute(
        "CREATE UNIQUE INDEX documents_owner_source ON documents (owner, source)"
        " WHERE source IS NOT NULL"
    )
    conn.execute(
        """
        CREATE TABLE chunks (
            key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text NOT NULL,
            owner text NOT NULL,
            doc_key bigint NOT NULL REFERENCES documents (key) ON DELETE CASCADE,
            position integer NOT NULL,
            page integer NOT NULL,
            page_end integer NOT NULL,
            start integer NOT NULL,
            "end" integer NOT NULL,
            text text NOT NULL,
            text_hash text NOT NULL,
            length integer NOT NULL,
            UNIQUE (owner, id)
        )
        """
    )
    conn.execute("CREATE INDEX chunks_doc ON chunks (doc_key)")
    conn.execute("CREATE INDEX chunks_owner_text ON chunks (owner, text_hash)")


@migration
def m003_bm25_postings(conn: psycopg.Connection[Any]) -> None:
    # An inverted index as a table: one row per (owner, stemmed word, chunk) with the
    # word's count and the chunk's length, so that BM25 reads only the query words'
    # posting lists, from the covering primary key. A word's document frequency is
    # the length of its list; the owner's chunk count and total length live in
    # owner_stats, written in the same statements as the chunks. No foreign key:
    # checking one per posting made ingesting 45% slower; the statement that
    # deletes chunks deletes their postings.
    conn.execute(
        """
        CREATE TABLE postings (
            owner text NOT NULL,
            term text NOT NULL,
            chunk_key bigint NOT NULL,
            tf integer NOT NULL,
            length integer NOT NULL,
            PRIMARY KEY (owner, term, chunk_key) INCLUDE (tf, length)
        )
        """
    )
    conn.execute("CREATE INDEX postings_chunk ON postings (chunk_key)")
    conn.execute(
        "CREATE TABLE owner_stats (owner text PRIMARY KEY,"
        " chunks bigint NOT NULL DEFAULT 0, length bigint NOT NULL DEFAULT 0)"
    )


@migration
def m004_embeddings(conn: psycopg.Connection[Any]) -> None:
    # One vector column for every model; each model's dimension is fixed here, and an
    # HNSW index, where one is made, is a partial index on vector::vector(dim).
    conn.execute(
        "CREATE TABLE embedding_models (model text PRIMARY KEY, dim integer NOT NULL,"
        " hnsw boolean NOT NULL DEFAULT false)"
    )
    conn.execute(
        """
        CREATE TABLE embeddings (
            owner text NOT NULL,
            model text NOT NULL REFERENCES embedding_models (model),
            text_hash text NOT NULL,
            vector vector NOT NULL,
            PRIMARY KEY (owner, model, text_hash)
        )
        """
    )


@migration
def m005_chunk_page_breaks(conn: psycopg.Connection[Any]) -> None:
    # Where later pages begin inside a chunk: [[offset in the document text, page], ...].
    conn.execute("ALTER TABLE chunks ADD COLUMN page_breaks jsonb NOT NULL DEFAULT '[]'")


@migration
def m006_users_and_api_keys(conn: psycopg.Connection[Any]) -> None:
    # A key is "dc_<key_id>_<secret>": the id finds the row, only the secret's SHA-256 is kept.
    conn.execute(
        "CREATE TABLE users (id text PRIMARY KEY, name text NOT NULL UNIQUE,"
        " created_at timestamptz NOT NULL)"
    )
    conn.execute(
        """
        CREATE TABLE api_keys (
            key_id text PRIMARY KEY,
            user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            secret_sha256 text NOT NULL,
            created_at timestamptz NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX api_keys_user ON api_keys (user_id)")


@migration
def m007_conversations_and_turns(conn: psycopg.Connection[Any]) -> None:
    conn.execute(
        """
        CREATE TABLE conversations (
            key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text NOT NULL UNIQUE,
            owner text NOT NULL,
            title text NOT NULL,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX conversations_owner ON conversations (owner, updated_at)")
    conn.execute(
        """
        CREATE TABLE turns (
            key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            conversation_key bigint NOT NULL REFERENCES conversations (key) ON DELETE CASCADE,
            question text NOT NULL,
            answer text NOT NULL,
            citations jsonb NOT NULL,
            outcome text NOT NULL,
            created_at timestamptz NOT NULL
        )
        """
    )
    conn.execute("CREATE INDEX turns_conversation ON turns (conversation_key)")


@migration
def m008_upload_jobs(conn: psycopg.Connection[Any]) -> None:
    conn.execute(
        """
        CREATE TABLE upload_jobs (
            id text PRIMARY KEY,
            owner text NOT NULL,
            status text NOT NULL,
            files jsonb NOT NULL,
            done integer NOT NULL,
            documents jsonb NOT NULL,
            skipped jsonb NOT NULL,
            error text,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL
        )
        """
    )
    # fail_unfinished_jobs finds the few unfinished jobs among all the finished ones.
    conn.execute(
        "CREATE INDEX upload_jobs_unfinished ON upload_jobs (status)"
        " WHERE status IN ('queued', 'running')"
    )


@migration
def m009_locations_and_originals(conn: psycopg.Connection[Any]) -> None:
    # Each chunk's places (slides, sheet cells, sections) as [[start, end, place], ...];
    # each page's word boxes, compact (docuchat.corpus.locations.encode_boxes); the file itself.
    conn.execute("ALTER TABLE chunks ADD COLUMN places jsonb NOT NULL DEFAULT '[]'")
    conn.execute(
        """
        CREATE TABLE page_boxes (
            doc_key bigint NOT NULL REFERENCES documents (key) ON DELETE CASCADE,
            page integer NOT NULL,
            start integer NOT NULL,
            "end" integer NOT NULL,
            boxes bytea NOT NULL,
            PRIMARY KEY (doc_key, page)
        )
        """
    )
    conn.execute(
        "CREATE TABLE document_files (doc_key bigint PRIMARY KEY"
        " REFERENCES documents (key) ON DELETE CASCADE, data bytea NOT NULL)"
    )
    # Large files are already compressed (PDF streams, zips, images): store them as they are.
    conn.execute("ALTER TABLE document_files ALTER COLUMN data SET STORAGE EXTERNAL")


@migration
def m010_processes_upload_queue_and_cancels(conn: psycopg.Connection[Any]) -> None:
    # A job's claim: the process holding it, the token its writes must match, how many
    # times it was claimed; and the bytes it holds until it ends (what bounds the queue).
    conn.execute(
        "ALTER TABLE upload_jobs ADD COLUMN worker text, ADD COLUMN claim text,"
        " ADD COLUMN attempts integer NOT NULL DEFAULT 0,"
        " ADD COLUMN bytes bigint NOT NULL DEFAULT 0"
    )
    # The queue's claims and sweeps read only the jobs not yet ended, oldest first.
    conn.execute("DROP INDEX upload_jobs_unfinished")
    conn.execute(
        "CREATE INDEX upload_jobs_open ON upload_jobs (created_at)"
        " WHERE status IN ('receiving', 'queued', 'running')"
    )
    conn.execute(
        """
        CREATE TABLE upload_parts (
            job_id text NOT NULL REFERENCES upload_jobs (id) ON DELETE CASCADE,
            file integer NOT NULL,
            part integer NOT NULL,
            data bytea NOT NULL,
            PRIMARY KEY (job_id, file, part)
        )
        """
    )
    # Uploads are mostly compressed already (PDF, DOCX): do not try again.
    conn.execute("ALTER TABLE upload_parts ALTER COLUMN data SET STORAGE EXTERNAL")
    conn.execute(
        "CREATE TABLE processes (id text PRIMARY KEY, host text NOT NULL, pid integer NOT NULL,"
        " ingests boolean NOT NULL, seen_at timestamptz NOT NULL)"
    )
    conn.execute(
        """
        CREATE TABLE cancel_requests (
            key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            process text NOT NULL,
            run_id text NOT NULL,
            owner text NOT NULL,
            reason text NOT NULL,
            answer boolean,
            created_at timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    conn.execute(
        "CREATE INDEX cancel_requests_pending ON cancel_requests (process) WHERE answer IS NULL"
    )


@migration
def m011_embeddings_by_vector_space(conn: psycopg.Connection[Any]) -> None:
    # One space for the three precisions of all-MiniLM-L6-v2 (as SQLite's m012): each text
    # keeps its most precise vector; an HNSW index of a precision goes (rebuild it for the
    # space with create_vector_index).
    for name in MINILM_PRECISIONS:
        registered = conn.execute(
            "SELECT dim, hnsw FROM embedding_models WHERE model = %s", (name,)
        ).fetchone()
        if registered is None:
            continue
        conn.execute(
            "INSERT INTO embedding_models (model, dim) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            (MINILM_SPACE, registered[0]),
        )
        conn.execute(
            "INSERT INTO embeddings (owner, model, text_hash, vector)"
            " SELECT owner, %s, text_hash, vector FROM embeddings WHERE model = %s"
            " ON CONFLICT DO NOTHING",
            (MINILM_SPACE, name),
        )
        conn.execute("DELETE FROM embeddings WHERE model = %s", (name,))
        if registered[1]:
            conn.execute(
                sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(hnsw_index(name)))
            )
        conn.execute("DELETE FROM embedding_models WHERE model = %s", (name,))


@migration
def m012_turn_steps(conn: psycopg.Connection[Any]) -> None:
    # Each turn's tool steps as they were shown (as SQLite's m013). Older turns have none.
    conn.execute("ALTER TABLE turns ADD COLUMN steps jsonb NOT NULL DEFAULT '[]'")


@migration
def m013_turn_mode_reason(conn: psycopg.Connection[Any]) -> None:
    # Why a turn was answered in another mode than asked (as SQLite's m014). Older turns: "".
    conn.execute("ALTER TABLE turns ADD COLUMN mode_reason text NOT NULL DEFAULT ''")
