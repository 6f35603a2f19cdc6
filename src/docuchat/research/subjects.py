"""Whom a passage is about, beyond the sentences that name it.

A writer names a subject once and then leaves it out: an e-mail names the supplier in its
To line and then says "the standard rate will rise". A **header**, a paragraph that is a
block of fields (an e-mail's From, To and Subject, a forwarded message's, a memo's), names
whom the sentences after it in its passage are about. A name said only in another sentence
of a passage is not its subject (a table's row names its own city, a paragraph its own
supplier).
"""

from __future__ import annotations

import re

from docuchat.research.words import stem, words

_FIELD = re.compile(r"^[A-Z][\w.&/-]*(?: [\w.&/-]+)?:[^\S\n]+\S")
"""A line of a header block: a field's name of one or two words and its value ("To: Ravi
Menon <…>", "Prepared by: …"); not a list's "Store stock service: green"."""


def header(paragraph: str) -> frozenset[str] | None:
    """The stems of a paragraph that is a header: at least two lines of fields, and at most
    one other line ("-----Original Message-----"); None for any other paragraph."""
    lines = [line.strip() for line in paragraph.splitlines() if line.strip()]
    fields = sum(bool(_FIELD.match(line)) for line in lines)
    if fields < 2 or len(lines) - fields > 1:
        return None
    return frozenset(stem(w) for w in words(paragraph))


__all__ = ["header"]
