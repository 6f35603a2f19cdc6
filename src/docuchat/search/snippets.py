"""Short excerpts of a chunk around the words a query matched, with highlight offsets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Span = tuple[int, int]

ELLIPSIS = "…"
DEFAULT_WIDTH = 200
_LEAD_IN = 0.25  # share of the window shown before the first highlighted word
_WORD_REACH = 24  # how far a window edge moves to avoid cutting a word
_ONE_LINE = str.maketrans(dict.fromkeys("\n\r\t\f\v", " "))


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    highlights: tuple[Span, ...]  # offsets into ``text``

    def marked(self, before: str = "**", after: str = "**") -> str:
        """The text with each highlight wrapped in ``before`` and ``after``."""
        pieces, position = [], 0
        for start, end in self.highlights:
            pieces += [self.text[position:start], before, self.text[start:end], after]
            position = end
        pieces.append(self.text[position:])
        return "".join(pieces)


def make_snippet(text: str, spans: Sequence[Span], *, width: int = DEFAULT_WIDTH) -> Snippet:
    """About ``width`` characters of ``text`` on one line, where the most distinct matched
    words are; ``spans`` are the matches' offsets in ``text``."""
    spans = sorted({(s, e) for s, e in spans if 0 <= s < e <= len(text)})
    start, end = _window(text, spans, width)
    lead = len(text[start:end]) - len(text[start:end].lstrip())
    start += lead
    end = start + len(text[start:end].rstrip())
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(text) else ""
    shift = len(prefix) - start
    highlights = tuple((s + shift, e + shift) for s, e in spans if s >= start and e <= end)
    return Snippet(prefix + text[start:end].translate(_ONE_LINE) + suffix, highlights)


def _window(text: str, spans: list[Span], width: int) -> Span:
    if len(text) <= width:
        return 0, len(text)
    latest = len(text) - width
    best_start, best_words = 0, -1
    for anchor, _ in spans:
        start = min(max(anchor - int(width * _LEAD_IN), 0), latest)
        words = {text[s:e].casefold() for s, e in spans if s >= start and e <= start + width}
        if len(words) > best_words:
            best_start, best_words = start, len(words)
    return _word_edges(text, best_start, best_start + width)


def _word_edges(text: str, start: int, end: int) -> Span:
    return _word_boundary(text, start), _word_boundary(text, end)


def _word_boundary(text: str, position: int) -> int:
    """The nearest position at or before ``position`` that does not split a word."""
    for j in range(position, max(position - _WORD_REACH, 0) - 1, -1):
        if j in (0, len(text)) or text[j - 1].isspace() != text[j].isspace():
            return j
    return position
