"""Markdown parsing: readable text without syntax marks; offsets refer to that text."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from docuchat.corpus.parse import parse_bytes
from docuchat.corpus.types import ParsedDocument
from docuchat.errors import EmptyDocument, UnsupportedFileType

NOTE = """---
title: "Onboarding checklist"
owner: people-team
---
# First week

Your laptop is **ready on day one**; see [the IT page](https://it.example.org)
for the *Wi-Fi* password. Run `make setup` once.

![Office floor plan](plan.png)

1. Meet your buddy
2. Read the handbook

| Item   | Deadline |
|--------|----------|
| Badge  | Day 1    |

```sh
make setup
```

<div class="note">Lunch is <b>free</b> on Fridays.<script>track()</script></div>

Second level
------------
Done.
"""


def _texts(doc: ParsedDocument) -> list[str]:
    return [doc.text[block.start : block.end] for block in doc.blocks]


def test_syntax_marks_are_stripped_and_structure_kept(
    assert_well_formed: Callable[[ParsedDocument], None],
) -> None:
    doc = parse_bytes(NOTE.encode(), "onboarding.md")

    assert _texts(doc) == [
        "First week",
        "Your laptop is ready on day one; see the IT page for the Wi-Fi password. "
        "Run make setup once.",
        "Office floor plan",
        "Meet your buddy",
        "Read the handbook",
        "Item | Deadline",
        "Badge | Day 1",
        "make setup",
        "Lunch is free on Fridays.",
        "Second level",
        "Done.",
    ]
    assert doc.title == "Onboarding checklist"
    assert doc.media_type == "text/markdown"
    assert doc.page_count == 1
    assert_well_formed(doc)


def test_windows_line_endings_are_understood() -> None:
    doc = parse_bytes(NOTE.replace("\n", "\r\n").encode(), "onboarding.md")
    assert doc.title == "Onboarding checklist"
    assert doc.text == parse_bytes(NOTE.encode(), "onboarding.md").text


def test_title_falls_back_to_the_first_heading_then_the_file_name() -> None:
    assert parse_bytes(b"Intro text.\n\n## Benefits\n\nDental.", "b.md").title == "Benefits"
    assert parse_bytes(b"Just text.", "notes.markdown").title == "notes"


def test_offsets_point_into_the_extracted_text_not_the_source() -> None:
    doc = parse_bytes(b"# Pay\n\nSalaries are paid on the **25th**.", "pay.md")
    start = doc.text.index("25th")
    assert doc.text[start : start + 4] == "25th"
    assert "**" not in doc.text


def test_markdown_with_only_markup_is_empty() -> None:
    with pytest.raises(EmptyDocument):
        parse_bytes(b"---\ntitle: x\n---\n\n<!-- nothing -->\n\n---\n", "blank.md")


def test_binary_content_named_markdown_is_rejected() -> None:
    with pytest.raises(UnsupportedFileType, match="NUL bytes"):
        parse_bytes(b"# Title\n\x00\x01\x02\x03", "notes.md")
