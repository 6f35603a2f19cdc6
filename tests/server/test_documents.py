"""Uploads: checked whole, ingested in the background with progress; listing and deleting."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from docuchat.models.scripted import ScriptedModel
from docuchat.server import ServerSettings, create_app
from docuchat.store.coordination import SpooledFile

from .conftest import ALICE_FILES, Keys, auth, finished_job, services_of, upload

PDF = Path(__file__).parents[1] / "corpus/fixtures/real-pdfs/002-trivial-libre-office-writer.pdf"


def spooled(name: str, data: bytes) -> SpooledFile:
    return SpooledFile(name, io.BytesIO(data), len(data))


async def document_titles(client: httpx.AsyncClient, key: str) -> list[str]:
    response = await client.get("/api/documents", headers=auth(key))
    return [d["title"] for d in response.json()["documents"]]


async def test_several_files_are_ingested_in_the_background_and_become_searchable(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys
) -> None:
    files: dict[str, str | bytes] = {**ALICE_FILES, "report.pdf": PDF.read_bytes()}
    response = await client.post(
        "/api/documents",
        headers=auth(keys.alice),
        files=[("files", (name, data)) for name, data in files.items()],
    )
    assert response.status_code == 202
    accepted = response.json()
    assert accepted["status"] == "queued"
    assert accepted["files"] == list(files)

    job = await finished_job(client, keys.alice, accepted["job_id"])
    assert (job["status"], job["total"], job["done"], job["error"]) == ("done", 3, 3, None)
    assert [d["status"] for d in job["documents"]] == ["added"] * 3
    assert job["documents"][2]["pages"] >= 1
    listed = (await client.get("/api/documents", headers=auth(keys.alice))).json()["documents"]
    assert [d["source"] for d in listed] == list(files)
    assert {d["id"] for d in listed} == {d["id"] for d in job["documents"]}
    assert listed[0]["title"] == "Highlands Valuation Report"
    assert listed[2]["media_type"] == "application/pdf"
    hits = services_of(app).searcher.search("alice", "market value of the Highlands estate")
    assert hits[0].doc_id == job["documents"][0]["id"]


async def test_a_file_that_cannot_be_read_is_skipped_with_its_reason(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    files: dict[str, str | bytes] = {
        "broken.pdf": b"%PDF-1.4 this is not really a PDF",
        "empty.txt": b"",
        "ok.md": "# Fine\n\nThis one is fine.",
    }
    job = await finished_job(client, keys.alice, await upload(client, keys.alice, files))
    assert (job["status"], job["done"]) == ("done", 3)
    assert [d["title"] for d in job["documents"]] == ["Fine"]
    assert [(s["file"], s["reason"]) for s in job["skipped"]] == [
        ("broken.pdf", "corrupt file"),
        ("empty.txt", "empty document"),
    ]
    assert await document_titles(client, keys.alice) == ["Fine"]


async def test_uploading_a_name_again_replaces_it_and_the_same_content_is_unchanged(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    first = await finished_job(
        client, keys.alice, await upload(client, keys.alice, {"a.md": "# A\n\nOne."})
    )
    again = await finished_job(
        client, keys.alice, await upload(client, keys.alice, {"a.md": "# A\n\nOne."})
    )
    changed = await finished_job(
        client, keys.alice, await upload(client, keys.alice, {"a.md": "# A2\n\nTwo."})
    )
    [_one_document] = {
        first["documents"][0]["id"],
        again["documents"][0]["id"],
        changed["documents"][0]["id"],
    }
    assert [j["documents"][0]["status"] for j in (first, again, changed)] == [
        "added",
        "unchanged",
        "replaced",
    ]
    assert await document_titles(client, keys.alice) == ["A2"]


@pytest.fixture
def small_limits(settings: ServerSettings) -> None:
    settings.max_file_bytes, settings.max_upload_bytes, settings.max_files = 100, 1000, 3


@pytest.mark.usefixtures("small_limits")
@pytest.mark.parametrize(
    ("files", "status", "message"),
    [
        ({}, 400, "no files"),
        ({"tool.exe": "MZ"}, 415, "tool.exe: .exe files are not supported"),
        ({"README": "ok"}, 415, "files without an extension are not supported"),
        ({"big.md": "x" * 101, "c.exe": ""}, 413, "big.md: 101 bytes, more than the limit of 100"),
        ({f"{n}.md": "x" * 90 for n in range(11)}, 413, "more than the limit of 1,000"),
        ({f"{n}.md": "x" for n in range(4)}, 400, "Too many files"),
    ],
)
async def test_a_rejected_upload_writes_nothing(
    client: httpx.AsyncClient,
    keys: Keys,
    files: dict[str, str],
    status: int,
    message: str,
) -> None:
    parts = [("files", (name, data)) for name, data in files.items()]
    response = await client.post(
        "/api/documents", headers=auth(keys.alice), files=parts or None, data={"x": "1"}
    )
    assert response.status_code == status, response.text
    assert message in response.json()["detail"]
    assert await document_titles(client, keys.alice) == []


@pytest.mark.usefixtures("small_limits")
async def test_each_file_answers_for_itself_the_good_ones_are_kept(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    files = {"a.md": "# Kept\n\nFine.", "tool.exe": "MZ", "big.md": "x" * 101}
    response = await client.post(
        "/api/documents",
        headers=auth(keys.alice),
        files=[("files", (name, data)) for name, data in files.items()],
    )
    assert response.status_code == 202, response.text
    accepted = response.json()
    assert accepted["files"] == ["a.md"]
    assert [(r["file"], r["reason"]) for r in accepted["rejected"]] == [
        ("tool.exe", "unsupported file type"),
        ("big.md", "file too large"),
    ]
    assert "supported: .csv, .docx" in accepted["rejected"][0]["message"]
    job = await finished_job(client, keys.alice, accepted["job_id"])
    assert [d["title"] for d in job["documents"]] == ["Kept"]


async def test_an_upload_without_a_length_is_refused(client: httpx.AsyncClient, keys: Keys) -> None:
    async def body() -> AsyncIterator[bytes]:
        yield b"--b\r\nContent-Disposition: form-data; name=files; filename=a.md\r\n\r\n"
        yield b"hi\r\n--b--\r\n"

    response = await client.post(
        "/api/documents",
        headers={**auth(keys.alice), "content-type": "multipart/form-data; boundary=b"},
        content=body(),
    )
    assert response.status_code == 411
    assert await document_titles(client, keys.alice) == []


async def test_a_folder_in_the_file_name_is_dropped(client: httpx.AsyncClient, keys: Keys) -> None:
    job_id = await upload(client, keys.alice, {"..\\..\\secret\\notes.md": "# Notes\n\nHi."})
    job = await finished_job(client, keys.alice, job_id)
    assert job["documents"][0]["title"] == "Notes"
    listed = (await client.get("/api/documents", headers=auth(keys.alice))).json()["documents"]
    assert listed[0]["source"] == "notes.md"


async def test_deleting_a_document_removes_it_from_the_list_and_from_search(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys, documents: dict[str, list[dict[str, str]]]
) -> None:
    valuation = documents["alice"][0]
    response = await client.delete(f"/api/documents/{valuation['id']}", headers=auth(keys.alice))
    assert response.status_code == 204
    assert await document_titles(client, keys.alice) == ["lease"]
    hits = services_of(app).searcher.search("alice", "market value Highlands")
    assert valuation["id"] not in {h.doc_id for h in hits}
    again = await client.delete(f"/api/documents/{valuation['id']}", headers=auth(keys.alice))
    assert again.status_code == 404


async def test_embeddings_are_computed_once_the_text_is_in(
    settings: ServerSettings, model: ScriptedModel
) -> None:
    app = create_app(settings.model_copy(update={"embedder": "hash:64"}), model=model)
    services = services_of(app)
    try:
        uploads = [spooled(name, text.encode()) for name, text in ALICE_FILES.items()]
        job_id = services.submit_upload("alice", uploads).id
        for _ in range(200):
            job = services.coordination.get_job("alice", job_id)
            if job.status in ("done", "failed"):
                break
            await asyncio.sleep(0.02)
        assert job.status == "done"
        embedder = services.searcher.embedder
        assert embedder is not None
        assert services.store.count_texts_to_embed("alice", embedder.name) == 0
        [hit] = services.searcher.search("alice", "annual rent cottage", k=1, mode="dense")
        assert hit.title == "lease"
    finally:
        await services.aclose()


async def test_an_upload_the_queue_has_no_room_for_is_refused_before_its_body_is_read(
    settings: ServerSettings, model: ScriptedModel
) -> None:
    # No ingestion thread: what is accepted stays queued.
    tight = {"max_upload_bytes": 4000, "max_queued_bytes": 6000, "ingest_threads": 0}
    app = create_app(settings.model_copy(update=tight), model=model)
    services = services_of(app)
    key = services.accounts.add_user("alice")[1]
    transport = httpx.ASGITransport(app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            await upload(client, key, {"a.md": "# A\n\n" + "a" * 3000})
            read: list[bytes] = []

            async def body() -> AsyncIterator[bytes]:
                read.append(b"")
                yield b"--x\r\n"

            refused = await client.post(
                "/api/documents",
                headers={
                    **auth(key),
                    "content-type": "multipart/form-data; boundary=x",
                    "content-length": "3500",
                },
                content=body(),
            )
            assert refused.status_code == 503, refused.text
            assert int(refused.headers["retry-after"]) > 0
            assert "upload queue" in refused.json()["detail"]
            assert read == []  # refused on its headers
            await upload(client, key, {"b.md": "# B\n\nfits"})  # a smaller one still fits
            health = (await client.get("/health")).json()
            assert (health["queue"]["queued"], health["queue"]["ingests_here"]) == (2, False)
    finally:
        await services.aclose()
