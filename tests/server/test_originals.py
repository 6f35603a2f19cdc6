"""The original behind a citation: its file, its pages as pictures, and where a quote stands."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from PIL import Image

from docuchat.corpus.locations import quote_regions
from docuchat.corpus.parse import parse_bytes

from .conftest import Keys, auth, finished_job, services_of, sse_events, upload

REAL_PDFS = Path(__file__).parents[1] / "corpus" / "fixtures" / "real-pdfs"
PDF = REAL_PDFS / "pdflatex-4-pages.pdf"
SHEET = b'Department,Budget 2026\nFacilities,"184,000"\nResearch,"410,000"\n'


@pytest.fixture
async def pdf_id(client: httpx.AsyncClient, keys: Keys) -> str:
    job = await finished_job(
        client, keys.alice, await upload(client, keys.alice, {"four.pdf": PDF.read_bytes()})
    )
    doc_id: str = job["documents"][0]["id"]
    return doc_id


async def test_the_original_file_comes_back_to_its_owner_only(
    client: httpx.AsyncClient, keys: Keys, pdf_id: str
) -> None:
    response = await client.get(f"/api/documents/{pdf_id}/file", headers=auth(keys.alice))
    assert response.status_code == 200
    assert response.content == PDF.read_bytes()
    assert response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"] == "inline; filename*=UTF-8''four.pdf"
    assert response.headers["content-security-policy"].startswith("sandbox")
    assert response.headers["x-content-type-options"] == "nosniff"
    for key, doc_id in ((keys.bob, pdf_id), (keys.alice, "no-such-document")):
        other = await client.get(f"/api/documents/{doc_id}/file", headers=auth(key))
        assert other.status_code == 404


async def test_a_page_is_a_png_of_the_width_asked_and_is_cached(
    app: FastAPI, client: httpx.AsyncClient, keys: Keys, pdf_id: str
) -> None:
    url = f"/api/documents/{pdf_id}/pages/2"
    response = await client.get(url, params={"width": 500}, headers=auth(keys.alice))
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.width == 600  # rounded up to a multiple of 200
    cached = list((services_of(app).settings.home / "cache" / "pages").rglob("2-600.png"))
    assert len(cached) == 1 and cached[0].read_bytes() == response.content
    again = await client.get(url, params={"width": 600}, headers=auth(keys.alice))
    assert again.content == response.content
    for key, path in (
        (keys.bob, url),
        (keys.alice, f"/api/documents/{pdf_id}/pages/5"),
        (keys.alice, "/api/documents/unknown/pages/1"),
    ):
        assert (await client.get(path, headers=auth(key))).status_code == 404
    too_wide = await client.get(url, params={"width": 99_999}, headers=auth(keys.alice))
    assert too_wide.status_code == 422


async def test_a_document_without_pages_to_show_says_so(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    job = await finished_job(client, keys.alice, await upload(client, keys.alice, {"b.csv": SHEET}))
    doc_id = job["documents"][0]["id"]
    response = await client.get(f"/api/documents/{doc_id}/pages/1", headers=auth(keys.alice))
    assert response.status_code == 415 and "text/csv" in response.json()["detail"]
    sheet = await client.get(f"/api/documents/{doc_id}/file", headers=auth(keys.alice))
    assert sheet.headers["content-disposition"].startswith("attachment")


def _check_boxes(citation: dict[str, Any]) -> None:
    """The citation's boxes are the parser's boxes of its own quote."""
    doc = parse_bytes(PDF.read_bytes(), "four.pdf")
    start, end = citation["span"]
    assert doc.text[start:end] == citation["quote"]
    want = quote_regions(doc.boxes, start, end)
    assert [loc["page"] for loc in citation["locations"]] == [r.page for r in want]
    for location, region in zip(citation["locations"], want, strict=True):
        got = [v for box in location["boxes"] for v in box]
        assert got == pytest.approx([v for box in region.boxes for v in box], abs=1e-4)


async def test_citations_carry_their_quotes_boxes_in_the_api_and_the_openai_endpoint(
    client: httpx.AsyncClient, keys: Keys, pdf_id: str
) -> None:
    question = "What does this blind text give you information about?"
    events = sse_events(
        (await client.post("/api/ask", headers=auth(keys.alice), json={"question": question})).text
    )
    final = events[-2]
    [citation] = final["citations"]
    assert citation["doc_id"] == pdf_id
    assert citation["label"] == f"page {citation['page']}"
    assert citation["locations"] and all(loc["boxes"] for loc in citation["locations"])
    _check_boxes(citation)
    step = [e for e in events[:-1] if e["type"] == "step"][-1]
    assert step["message"].endswith(f", page {citation['page']}")  # the step's label

    body = {"model": "docuchat", "messages": [{"role": "user", "content": question}]}
    completion = (
        await client.post("/v1/chat/completions", headers=auth(keys.alice), json=body)
    ).json()
    [openai_citation] = completion["citations"]
    assert openai_citation["locations"] == citation["locations"]
    assert f", {citation['label']} (verified)" in completion["choices"][0]["message"]["content"]


async def test_a_sheet_citation_names_its_cells(client: httpx.AsyncClient, keys: Keys) -> None:
    await finished_job(client, keys.alice, await upload(client, keys.alice, {"Budget.csv": SHEET}))
    result = (
        await client.post(
            "/api/ask",
            headers=auth(keys.alice),
            json={"question": "What is the Research budget?", "stream": False},
        )
    ).json()
    [citation] = result["citations"]
    assert citation["quote"] == "Department | Budget 2026\nResearch | 410,000"  # with its header
    assert citation["label"] == "Budget!A3:B3"
    assert citation["locations"] == [
        {
            "page": None,
            "boxes": None,
            "slide": None,
            "sheet": "Budget",
            "cells": "A3:B3",
            "rows": [3, 3],
            "columns": [1, 2],
            "section": None,
        }
    ]
