"""Pictures of original pages for the web page, rendered in the sandbox and cached on disk.

The cache is keyed by the file's content hash, the page and the width (rounded up
to a multiple of ``WIDTH_STEP`` so a few sizes serve every screen), under
``$DOCUCHAT_HOME/cache/pages``: every server process sharing the home shares it,
and a file is written whole (renamed into place) so no process reads half of one.
Ownership is checked by the route before anything is read from it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from docuchat.corpus.render import MAX_WIDTH, MIN_WIDTH
from docuchat.corpus.sandbox import ParseSandbox
from docuchat.store import DocumentRecord, Store

WIDTH_STEP = 200


class PageImages:
    """Renders in a sandbox of its own, so that a page shows while a long scan is ingested."""

    def __init__(self, store: Store, folder: Path) -> None:
        self.store = store
        self.folder = folder
        self._sandbox = ParseSandbox()

    def close(self) -> None:
        self._sandbox.close()

    def png(self, owner: str, document: DocumentRecord, page: int, width: int) -> bytes:
        """Page ``page`` of the owner's document as a PNG; NotFound for a page it lacks."""
        width = min(max(-(-width // WIDTH_STEP) * WIDTH_STEP, MIN_WIDTH), MAX_WIDTH)
        cached = self.folder / document.content_hash / f"{page}-{width}.png"
        if cached.is_file():
            return cached.read_bytes()
        original = self.store.document_file(owner, document.id)
        png = self._sandbox.render(original, document.media_type, page, width)
        cached.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=cached.parent, delete=False) as handle:
            handle.write(png)
        os.replace(handle.name, cached)
        return png
