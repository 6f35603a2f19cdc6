"""Shared fixtures for the corpus tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from docuchat.corpus.types import PAGE_SEPARATOR, ParsedDocument


def _check_layout(doc: ParsedDocument) -> None:
    assert doc.blocks, "a parsed document has at least one block"
    assert doc.text == PAGE_SEPARATOR.join(doc.text[b.start : b.end] for b in doc.blocks)
    for block in doc.blocks:
        block_text = doc.text[block.start : block.end]
        assert block_text and block_text == block_text.strip()
        assert 1 <= block.page <= doc.page_count
    pages = [block.page for block in doc.blocks]
    assert pages == sorted(pages), "blocks come in page order"


@pytest.fixture
def assert_well_formed() -> Callable[[ParsedDocument], None]:
    """Checks the invariants every parser's output holds, whatever the format: the
    text is the blocks joined by the separator, each block is stripped, non-empty and
    on an existing page, and blocks come in page order."""
    return _check_layout
