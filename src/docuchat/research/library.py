"""The asker's documents, whole: what a front end lists and opens besides the research tools.

Read-only and scoped to one owner; an id that is unknown or someone else's
raises the store's ``NotFound``, the same either way.
"""

from __future__ import annotations

from dataclasses import dataclass

from docuchat.store.base import DocumentRecord, Store


@dataclass(frozen=True, slots=True)
class Library:
    store: Store
    owner: str

    def documents(self) -> list[DocumentRecord]:
        """Oldest first."""
        return self.store.list_documents(self.owner)

    def document(self, doc_id: str) -> DocumentRecord:
        return self.store.get_document(self.owner, doc_id)

    def text(self, doc_id: str) -> str:
        """The document's whole extracted text (the text citation spans point into)."""
        return self.store.document_text(self.owner, doc_id)
