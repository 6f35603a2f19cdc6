"""``resources/list`` in pages, read by the official MCP client from ``docuchat mcp``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from docuchat.corpus.ingest import ingest_paths
from docuchat.mcp_server.pages import PAGE_SIZE, InvalidCursor, page_of
from docuchat.store import open_store
from docuchat.store.base import DocumentRecord

from .conftest import docuchat_mcp

MANY = 2 * PAGE_SIZE + 30


@pytest.fixture
def many(tmp_path: Path) -> Path:
    """One owner with two and a third pages of documents."""
    path = tmp_path / "docuchat.db"
    folder = tmp_path / "carol"
    folder.mkdir()
    for n in range(MANY):
        (folder / f"note-{n:03}.md").write_text(f"# Note {n}\n\nItem {n} costs {n} pounds.")
    store = open_store(path)
    assert len(ingest_paths(store, "carol", [folder]).ingested) == MANY
    store.close()
    return path


async def test_the_documents_come_in_pages_each_once_though_one_is_removed_between_them(
    many: Path,
) -> None:
    async with Client(docuchat_mcp(many, "carol")) as client:
        first = await client.list_resources()
        assert len(first.resources) == PAGE_SIZE and first.next_cursor
        store = open_store(many)
        # The last document of the first page goes before the second page is asked for.
        [gone] = [d for d in store.list_documents("carol") if d.title == "Note 99"]
        store.remove_document("carol", gone.id)
        store.close()
        second = await client.list_resources(cursor=first.next_cursor)
        assert second.next_cursor
        third = await client.list_resources(cursor=second.next_cursor)
        assert third.next_cursor is None

    titles = [r.name for page in (first, second, third) for r in page.resources]
    assert titles == [f"Note {n}" for n in range(MANY)]
    assert [r.name for r in second.resources][:1] == ["Note 100"]
    assert len(third.resources) == MANY - 2 * PAGE_SIZE


async def test_a_cursor_the_server_did_not_give_is_invalid_params(many: Path) -> None:
    async with Client(docuchat_mcp(many, "carol")) as client:
        with pytest.raises(MCPError, match="Invalid cursor") as raised:
            await client.list_resources(cursor="not-a-cursor")
    assert raised.value.error.code == -32602


def _record(n: int) -> DocumentRecord:
    return DocumentRecord(
        id=f"d{n}",
        title=f"Note {n}",
        source=None,
        media_type="text/markdown",
        content_hash=str(n),
        page_count=1,
        chunk_count=1,
        char_count=10,
        metadata={},
        added_at=f"2026-11-25T09:00:{n:02}+00:00",
    )


@pytest.mark.parametrize(
    ("removed", "second_page"),
    [
        ({"d2"}, ["d3", "d4", "d5"]),  # the last listed
        ({"d3"}, ["d4", "d5", "d6"]),  # the next one
        ({"d2", "d3"}, ["d4", "d5", "d6"]),  # both: the first added no earlier than d3
        ({"d0", "d1"}, ["d3", "d4", "d5"]),  # earlier ones shift nothing
    ],
)
def test_a_page_goes_on_where_the_last_one_stopped_whatever_was_removed(
    removed: set[str], second_page: list[str]
) -> None:
    records = [_record(n) for n in range(7)]
    first = page_of(records, None, size=3)
    assert [r.id for r in first.records] == ["d0", "d1", "d2"] and first.next_cursor
    left = [r for r in records if r.id not in removed]
    second = page_of(left, first.next_cursor, size=3)
    assert [r.id for r in second.records] == second_page
    assert page_of(records[:3], None, size=3).next_cursor is None


def test_the_same_second_lists_one_document_twice_rather_than_lose_one() -> None:
    records = [
        dataclasses.replace(_record(n), added_at="2026-11-25T09:00:00+00:00") for n in range(7)
    ]
    first = page_of(records, None, size=3)
    left = [r for r in records if r.id not in {"d2", "d3"}]
    assert [r.id for r in page_of(left, first.next_cursor, size=3).records] == ["d0", "d1", "d4"]


@pytest.mark.parametrize(
    "cursor", ["not-a-cursor", "bnVsbA==", "WzEsIDJd", "", "%%%", "WyJhIiwgImIiXQ=="]
)
def test_a_cursor_that_is_not_ours_is_refused(cursor: str) -> None:
    with pytest.raises(InvalidCursor, match="Invalid cursor"):
        page_of([_record(0)], cursor)
