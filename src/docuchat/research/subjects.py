"""Whom a document is about, beyond the sentences that name it.

A writer names a document's subject once and then leaves it out: an e-mail names the
supplier in its To line and then says "the standard rate will rise"; a contract names its
parties once ("Kestrel Logistics Ltd (the "Supplier")") and then says "the Supplier". A
sentence of such a document is about that subject although it does not name it:

- the **header** of a passage, its first paragraph when it is a block of fields (an
  e-mail's From, To and Subject, a memo's or a report's), names whom the passage is about;
- a **defined name** ("the *Supplier*", "*NGD*" for Northgate Diagnostics) stands for the
  name it was defined for, wherever the document uses it: a definition in any opened
  passage of a document counts for all of its sentences.

A name said only in another sentence of a passage is not its subject (a table's row names
its own city, a paragraph its own supplier).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from docuchat.research.words import stem, words

_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
_FIELD = re.compile(r"^[A-Z][\w .&/-]{0,30}:[^\S\n]+\S")
"""A line of a header block: a field's name and its value ("To: Ravi Menon <…>")."""
_NAME_WORD = r"[A-Z][\w&'’.-]*"
_DEFINED = re.compile(
    rf"\b(?P<name>{_NAME_WORD}(?:\s+(?:of\s+|&\s+)?{_NAME_WORD}){{0,5}})\s*,?\s*"
    r"\((?:together\s+|hereinafter\s+|hereafter\s+)?(?:called\s+|referred to as\s+)?"
    r"(?:(?P<the>the\s+)?(?P<open>[\"“'‘])(?:the\s+)?(?P<quoted>[A-Z][\w-]*)[\"”'’]"
    r"|(?P<the_word>the\s+)(?P<word>[A-Z][\w-]*)|(?P<acronym>[A-Z]{2,}))\)"
)
"""A name and the short name it is given: 'Kestrel Logistics Ltd (the "Supplier")',
"Acme Hosting Ltd (the Provider)", "Northgate Diagnostics (NGD)"."""


@dataclass(frozen=True, slots=True)
class Subjects:
    """What a passage and its document's opened passages say it is about."""

    header: frozenset[str] = frozenset()
    """Stems of the passage's header's words."""
    defined: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Each defined short name (lower case) and the stems of the name it stands for."""

    def named(self, said: Iterable[str]) -> frozenset[str]:
        """The stems of the names a sentence that says ``said`` (its words, lower case)
        names through its document: its header's, and those its defined names stand for."""
        meant = (self.defined[w] for w in set(said) if w in self.defined)
        return self.header.union(*meant)


def header(text: str) -> frozenset[str]:
    """The stems of a passage's header: its first paragraph when it is a block of at least
    two fields, each line a name and its value."""
    first = _PARAGRAPH_BREAK.split(text.strip(), maxsplit=1)[0]
    lines = [line.strip() for line in first.splitlines() if line.strip()]
    if len(lines) < 2 or not all(_FIELD.match(line) for line in lines):
        return frozenset()
    return frozenset(stem(w) for w in words(first))


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


__all__ = ["Subjects", "defined_by_document", "defined_names", "header"]
