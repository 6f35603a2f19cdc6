"""Whom a document is about, beyond the sentences that name it.

A writer names a document's subject once and then leaves it out: an e-mail names the
supplier in its To line and then says "the standard rate will rise"; a contract names its
parties once ("Kestrel Logistics Ltd (the "Supplier")") and then says "the Supplier". A
sentence of such a document is about that subject although it does not name it:

- a **header**, a paragraph that is a block of fields (an e-mail's From, To and Subject,
  a forwarded message's, a memo's), names whom the sentences after it in its passage are
  about;
- a **defined name** ("the *Supplier*", "*NGD*" for Northgate Diagnostics) stands for the
  name it was defined for, wherever the document uses it: a definition in any opened
  passage of a document counts for all of its sentences.

A name said only in another sentence of a passage is not its subject (a table's row names
its own city, a paragraph its own supplier).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from docuchat.research.words import stem, words

_FIELD = re.compile(r"^[A-Z][\w.&/-]*(?: [\w.&/-]+)?:[^\S\n]+\S")
"""A line of a header block: a field's name of one or two words and its value ("To: Ravi
Menon <…>", "Prepared by: …"); not a list's "Store stock service: green"."""
_NAME_WORD = r"[A-Z][\w&'’.-]*"
_DEFINED = re.compile(
    rf"\b(?P<name>{_NAME_WORD}(?:\s+(?:of\s+|&\s+)?{_NAME_WORD}){{0,5}})\s*,?\s*"
    r"\((?:together\s+|hereinafter\s+|hereafter\s+)?(?:called\s+|referred to as\s+)?"
    r"(?:(?P<the>the\s+)?(?P<open>[\"“'‘])(?:the\s+)?(?P<quoted>[A-Z][\w-]*)[\"”'’]"
    r"|(?P<the_word>the\s+)(?P<word>[A-Z][\w-]*)|(?P<acronym>[A-Z]{2,}))\)"
)
"""A name and the short name it is given: 'Kestrel Logistics Ltd (the "Supplier")',
"Acme Hosting Ltd (the Provider)", "Northgate Diagnostics (NGD)"."""


def header(paragraph: str) -> frozenset[str] | None:
    """The stems of a paragraph that is a header: at least two lines of fields, and at most
    one other line ("-----Original Message-----"); None for any other paragraph."""
    lines = [line.strip() for line in paragraph.splitlines() if line.strip()]
    fields = sum(bool(_FIELD.match(line)) for line in lines)
    if fields < 2 or len(lines) - fields > 1:
        return None
    return frozenset(stem(w) for w in words(paragraph))


def defined_in(defined: Mapping[str, frozenset[str]], said: Iterable[str]) -> frozenset[str]:
    """The stems of the names that the defined short names among ``said`` (words, lower
    case) stand for."""
    return frozenset().union(*(defined[w] for w in set(said) if w in defined))


def defined_names(text: str) -> dict[str, frozenset[str]]:
    """The short names a text defines, each with the stems of the name it stands for."""
    found: dict[str, frozenset[str]] = {}
    for match in _DEFINED.finditer(text):
        said = words(match.group("name"))
        short = match.group("quoted") or match.group("word") or match.group("acronym")
        alias = short.lower()
        # an acronym stands for the name whose words it is the initials of ("Timeline
        # (GMT)" is no definition)
        initials = "".join(w[0] for w in said)
        if match.group("acronym") and not _initials_of(alias, initials):
            continue
        if alias not in said:
            found[alias] = found.get(alias, frozenset()) | frozenset(stem(w) for w in said)
    return found


def _initials_of(acronym: str, initials: str) -> bool:
    """The acronym's letters are initials of the name's words, in order ("NGD" of "Northgate
    Group Diagnostics", "NG" of "Northgate Diagnostics Group")."""
    rest = iter(initials)
    return all(letter in rest for letter in acronym)


def defined_by_document(
    passages: Iterable[tuple[str, str]],
) -> dict[str, dict[str, frozenset[str]]]:
    """Per document title, the short names its passages (title, text) define."""
    defined: dict[str, dict[str, frozenset[str]]] = {}
    for title, text in passages:
        known = defined.setdefault(title, {})
        for alias, name in defined_names(text).items():
            known[alias] = known.get(alias, frozenset()) | name
    return defined


__all__ = ["defined_by_document", "defined_in", "defined_names", "header"]
