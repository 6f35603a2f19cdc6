"""Chunking: exact offsets, full coverage, bounded overlap, clean boundaries, pages."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docuchat.corpus.chunking import chunk_document
from docuchat.corpus.parse import content_hash, parse_bytes, parse_file
from docuchat.corpus.types import Block, Chunk, ParsedDocument

HASH = content_hash(b"test document")
REAL_PDFS = Path(__file__).parent / "fixtures" / "real-pdfs"


def _one_block(text: str) -> ParsedDocument:
    blocks = (Block(page=1, start=0, end=len(text)),) if text.strip() else ()
    return ParsedDocument(
        title="t", text=text, blocks=blocks, page_count=1, media_type="text/plain"
    )


def _page_of(doc: ParsedDocument, offset: int) -> int:
    return next(block.page for block in doc.blocks if block.start <= offset < block.end)


def _check(doc: ParsedDocument, chunks: list[Chunk], size: int, overlap: int) -> None:
    text = doc.text
    content = text.strip()
    if not content:
        assert chunks == []
        return
    for index, chunk in enumerate(chunks):
        assert chunk.index == index
        assert chunk.id == f"{HASH[:12]}-{index:04d}"
        assert text[chunk.start : chunk.end] == chunk.text, "offsets are exact"
        assert 0 < len(chunk.text) <= size
        assert chunk.text == chunk.text.strip(), "no whitespace at either end"
        if chunk.end < len(text) and not text[chunk.end].isspace():
            # Cut inside a word: only allowed for a word longer than a whole chunk.
            assert len(chunk.text) == size
            assert not any(character.isspace() for character in chunk.text)
    assert chunks[0].start == len(text) - len(text.lstrip())
    assert chunks[-1].end == len(text.rstrip())
    for before, after in pairwise(chunks):
        assert before.start < after.start and before.end < after.end
        assert before.end - after.start <= overlap
        if after.start >= before.end:
            assert text[before.end : after.start].strip() == "", "gaps hold only whitespace"
        if not text[after.start - 1].isspace():
            assert after.start == before.end, "a chunk starts mid-word only after a forced cut"


words = st.text(alphabet="abcdefgh", min_size=1, max_size=12)
long_words = st.text(alphabet="xyz", min_size=40, max_size=300)
separators = st.sampled_from([" ", " ", " ", " ", ". ", "? ", '." ', "\n", "\n\n", ".\n\n", "\f"])
prose = st.lists(st.tuples(words | long_words, separators), max_size=200).map(
    lambda pairs: "".join(word + separator for word, separator in pairs)
)
sizes = st.integers(min_value=20, max_value=400)


@settings(max_examples=150, deadline=None)
@given(text=prose, size=sizes, overlap_share=st.floats(0, 0.95))
def test_chunks_of_parsed_prose_are_exact_complete_and_bounded(
    text: str, size: int, overlap_share: float
) -> None:
    overlap = int(size * overlap_share)
    doc = parse_bytes(("start " + text).encode(), "generated.txt")  # form feeds make pages

    chunks = chunk_document(doc, doc_hash=HASH, size=size, overlap=overlap)

    _check(doc, chunks, size, overlap)
    for chunk in chunks:
        assert chunk.page == _page_of(doc, chunk.start)
        assert chunk.page_end == _page_of(doc, chunk.end - 1)


@settings(max_examples=150, deadline=None)
@given(text=st.text(), size=st.integers(1, 60), overlap_share=st.floats(0, 0.99))
def test_chunks_of_any_text_keep_the_invariants(text: str, size: int, overlap_share: float) -> None:
    overlap = min(int(size * overlap_share), size - 1)
    doc = _one_block(text)
    _check(doc, chunk_document(doc, doc_hash=HASH, size=size, overlap=overlap), size, overlap)


def _paragraphs(*lengths: int) -> str:
    return "\n\n".join(("word " * (length // 5)).strip() + "." for length in lengths)


def test_a_chunk_ends_at_a_paragraph_break_in_its_second_half() -> None:
    text = _paragraphs(120, 60, 300)
    chunks = chunk_document(_one_block(text), doc_hash=HASH, size=200, overlap=0)
    assert chunks[0].end == text.index("\n\n", 130)  # after the second paragraph


def test_a_heading_opens_the_next_chunk_instead_of_ending_this_one() -> None:
    first = "Leave is booked in Tally. " * 6
    text = f"{first.strip()}\n\nSick leave\n\n{'You self-certify up to seven days. ' * 6}"
    chunks = chunk_document(_one_block(text), doc_hash=HASH, size=200, overlap=0)
    assert chunks[0].text == first.strip()
    assert chunks[1].text.startswith("Sick leave\n\nYou self-certify")


def test_a_list_of_short_items_is_still_cut_between_items() -> None:
    text = "\n\n".join(f"Item number {n}" for n in range(40))
    chunks = chunk_document(_one_block(text), doc_hash=HASH, size=100, overlap=0)
    assert all(chunk.text.startswith("Item number") for chunk in chunks)
    assert all(re.fullmatch(r"Item number \d+", chunk.text.split("\n\n")[-1]) for chunk in chunks)


def test_without_a_paragraph_break_a_chunk_ends_after_a_sentence() -> None:
    text = "Alpha beta gamma. " * 5 + "delta " * 40
    chunks = chunk_document(_one_block(text), doc_hash=HASH, size=120, overlap=0)
    assert chunks[0].text.endswith("gamma.")
    assert chunks[0].end == len("Alpha beta gamma. " * 5) - 1


def test_overlap_starts_at_a_sentence_when_one_is_in_reach() -> None:
    text = " ".join(f"Sentence number {n} is here." for n in range(40))
    chunks = chunk_document(_one_block(text), doc_hash=HASH, size=200, overlap=60)
    for before, after in pairwise(chunks):
        assert after.start < before.end, "consecutive chunks overlap"
        assert after.text.startswith("Sentence number")


def test_a_word_longer_than_the_chunk_is_the_only_thing_cut_inside() -> None:
    text = "short words " + "x" * 250 + " tail"
    chunks = chunk_document(_one_block(text), doc_hash=HASH, size=100, overlap=20)
    assert [chunk.text for chunk in chunks] == [
        "short words",
        "x" * 100,
        "x" * 100,
        "x" * 50 + " tail",
    ]


def test_chunk_ids_are_stable_and_belong_to_the_document() -> None:
    doc = _one_block(_paragraphs(*[300] * 10))
    first = chunk_document(doc, doc_hash=HASH)
    assert first == chunk_document(doc, doc_hash=HASH)
    assert [chunk.id for chunk in first][:2] == [f"{HASH[:12]}-0000", f"{HASH[:12]}-0001"]
    other = chunk_document(doc, doc_hash=content_hash(b"another file"))
    assert {c.id for c in first}.isdisjoint(c.id for c in other)


def test_default_chunks_are_about_a_thousand_characters() -> None:
    doc = parse_file(REAL_PDFS / "pdflatex-4-pages.pdf")
    chunks = chunk_document(doc, doc_hash=HASH)
    assert all(500 <= len(chunk.text) <= 1000 for chunk in chunks[:-1])
    assert {chunk.page for chunk in chunks} == {1, 2, 3, 4}
    assert any(chunk.page_end == chunk.page + 1 for chunk in chunks), "a chunk spans a page break"


def test_a_document_without_text_has_no_chunks() -> None:
    assert chunk_document(_one_block(" \n\n "), doc_hash=HASH) == []


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (100, 100), (100, -1)])
def test_impossible_sizes_are_refused(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="overlap < size"):
        chunk_document(_one_block("text"), doc_hash=HASH, size=size, overlap=overlap)
