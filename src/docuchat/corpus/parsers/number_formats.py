"""A spreadsheet number as its cell's number format shows it: "0%" shows 0.15 as "15%",
'"$"#,##0.00' shows 1234.5 as "$1,234.50", "0" shows 2026 as "2026".

The common part of Excel's format language: sections for positive and negative numbers
("#,##0;(#,##0)"), digit placeholders with decimals and a thousands comma, percent,
literal text (quoted, escaped with a backslash, or currency signs and spaces as they
stand) and locale currency tags ("[$€-407]"); colours in brackets are dropped. Anything
else (conditions such as "[>=10]", fractions, scientific notation, text sections, dates,
which openpyxl already turns into dates) is left to the caller's plain rendering: a number
is never shown wrong, at worst without its format.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

GENERAL = "general"
_PLACEHOLDERS = "0#?"
_UNSUPPORTED = re.compile(r"[eE][+-]|/|@|[dmyhs]", re.IGNORECASE)
_CONDITION = re.compile(r"\[[<>=]")


def shown(value: float, number_format: str) -> str | None:
    """``value`` as ``number_format`` shows it, or None for General and formats not read."""
    if not number_format or number_format.strip().lower() == GENERAL:
        return None
    if _CONDITION.search(number_format):
        return None  # which section applies depends on the value: not read
    sections = _split_sections(number_format)
    if value == 0 and len(sections) > 2:
        return _render(0, sections[2], text_only=True)  # accounting's zero: "-"
    if value < 0 and len(sections) > 1:
        return _render(-value, sections[1])  # it writes its own sign: "(#,##0)"
    rendered = _render(abs(value), sections[0])
    if rendered is None or value >= 0:
        return rendered
    return "-" + rendered


def _split_sections(number_format: str) -> list[str]:
    """The format's sections, split at semicolons outside quotes and brackets."""
    sections, current, quoted, bracket = [], [], False, False
    escaped = False
    for char in number_format:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            current.append(char)
            escaped = True
        elif char == '"':
            quoted = not quoted
            current.append(char)
        elif char == "[" and not quoted:
            bracket = True
            current.append(char)
        elif char == "]" and not quoted:
            bracket = False
            current.append(char)
        elif char == ";" and not quoted and not bracket:
            sections.append("".join(current))
            current = []
        else:
            current.append(char)
    sections.append("".join(current))
    return sections


def _render(value: float, section: str, text_only: bool = False) -> str | None:
    tokens = _tokens(section)
    if tokens is None:
        return None
    digits = "".join(t for kind, t in tokens if kind == "digits")
    if not digits and not text_only:
        return None  # all text: the number would vanish
    out = [_number(value, digits, tokens) if kind == "digits" else text for kind, text in tokens]
    return "".join(out).strip()


def _number(value: float, digits: str, tokens: list[tuple[str, str]]) -> str:
    whole, _, fraction = digits.partition(".")
    scale = 1000 ** (len(whole) - len(whole.rstrip(",")))  # "#,##0," shows thousands
    percent = sum(text.count("%") for kind, text in tokens if kind == "literal")
    most = sum(1 for c in fraction if c in _PLACEHOLDERS)
    least = fraction.count("0")
    amount = (Decimal(repr(value)) * 100**percent / scale).quantize(
        Decimal(1).scaleb(-most), rounding=ROUND_HALF_UP
    )
    number = f"{amount:,f}" if "," in whole.rstrip(",") else f"{amount:f}"
    if most > least:  # "0.0#": optional decimals go when they are zeros
        kept = number.rstrip("0")
        number = kept + "0" * max(0, least - len(kept.partition(".")[2]))
        number = number.rstrip(".")
    if "0" not in whole and number.partition(".")[0] == "0":
        number = number[1:]  # "#.00" shows 0.5 as ".50", "??" shows 0 as nothing
    return number


def _tokens(section: str) -> list[tuple[str, str]] | None:
    """("digits", "#,##0.00") and ("literal", text) tokens, or None when not read."""
    tokens: list[tuple[str, str]] = []
    literal: list[str] = []
    i = 0
    digits_done = False

    def flush() -> None:
        if literal:
            tokens.append(("literal", "".join(literal)))
            literal.clear()

    while i < len(section):
        char = section[i]
        if char == '"':
            end = section.find('"', i + 1)
            if end < 0:
                return None
            literal.append(section[i + 1 : end])
            i = end + 1
        elif char == "\\" and i + 1 < len(section):
            literal.append(section[i + 1])
            i += 2
        elif char == "[":
            end = section.find("]", i)
            if end < 0:
                return None
            literal.append(_currency_of(section[i + 1 : end]))
            i = end + 1
        elif char in "_*" and i + 1 < len(section):
            i += 2  # padding to a character's width, a fill: nothing to read
        elif char in _PLACEHOLDERS:
            if digits_done:
                return None  # digits in two places: a fraction or a code pattern
            end = _digits_end(section, i)
            flush()
            tokens.append(("digits", section[i:end]))
            digits_done = True
            i = end
        elif _UNSUPPORTED.match(section, i):
            return None
        else:
            literal.append(char)
            i += 1
    flush()
    return tokens


def _digits_end(section: str, start: int) -> int:
    """Where the digits starting at ``start`` end: placeholders, a comma or point between
    two of them, and trailing commas (which scale by a thousand: "#,##0,")."""
    end = start
    while end < len(section):
        char = section[end]
        following = section[end + 1 : end + 2]
        if char in _PLACEHOLDERS or (char in ",." and following and following in _PLACEHOLDERS):
            end += 1
        elif char == ",":
            end += len(section[end:]) - len(section[end:].lstrip(","))
            break
        else:
            break
    return end


def _currency_of(bracketed: str) -> str:
    """A locale currency tag's sign ("$€-407" gives "€"); colours and conditions give ""."""
    if not bracketed.startswith("$"):
        return ""
    return bracketed[1:].split("-", 1)[0]
