"""Reads of a document's key, original file and page regions, once for both backends.

The statements are the same on SQLite and PostgreSQL but for how a parameter is
written, which each backend gives as ``mark`` (sqlite3's ``?``, psycopg's ``%s``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from docuchat.corpus.locations import PageRegion, decode_boxes, quote_regions
from docuchat.errors import NotFound


class _Cursor(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """A sqlite3 or psycopg connection, in a transaction."""

    def execute(self, sql: str, params: Sequence[Any], /) -> _Cursor: ...


class DocumentParts:
    """The reads, with parameters written as ``mark``."""

    def __init__(self, mark: str) -> None:
        self._key = f"SELECT key FROM documents WHERE owner = {mark} AND id = {mark}"
        self._file = (
            "SELECT f.data FROM document_files f JOIN documents d ON d.key = f.doc_key"
            f" WHERE d.owner = {mark} AND d.id = {mark}"
        )
        self._boxes = (
            f"SELECT page, boxes FROM page_boxes WHERE doc_key = {mark} AND start < {mark}"
            f' AND "end" > {mark} ORDER BY page'
        )

    def key(self, db: Connection, owner: str, doc_id: str) -> int:
        """The document's row key; ``NotFound`` if the owner has no such document."""
        row = db.execute(self._key, (owner, doc_id)).fetchone()
        if row is None:
            raise NotFound(f"no document {doc_id!r}")
        return int(row[0])

    def file(self, db: Connection, owner: str, doc_id: str) -> bytes:
        """The original file as uploaded; ``NotFound`` if none was kept."""
        row = db.execute(self._file, (owner, doc_id)).fetchone()
        if row is None:
            raise NotFound(f"no file for document {doc_id!r}")
        return bytes(row[0])

    def regions(
        self, db: Connection, owner: str, doc_id: str, start: int, end: int
    ) -> list[PageRegion]:
        """Where the text ``[start, end)`` stands on the document's pages (none without boxes)."""
        rows = db.execute(self._boxes, (self.key(db, owner, doc_id), end, start)).fetchall()
        return quote_regions((decode_boxes(page, bytes(blob)) for page, blob in rows), start, end)
