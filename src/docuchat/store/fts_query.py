"""Turn any user text into a safe FTS5 bag-of-words query.

User text is never handed to FTS5's query parser. It is split into words the
way the ``unicode61`` tokenizer splits them, common English stopwords are
dropped (unless nothing else is left), and each remaining word is quoted and
OR-ed: ``NEAR``, ``AND``, ``*``, ``-``, ``title:x``, quotes and parentheses all
become plain words or separators.
"""

from __future__ import annotations

import re

# Lucene's English stop set, the one BM25 baselines on BEIR use.
STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
        "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
        "these", "they", "this", "to", "was", "will", "with",
    }
)  # fmt: skip
MAX_TERMS = 64
_WORD = re.compile(r"[^\W_]+")


def query_terms(text: str) -> list[str]:
    """Distinct lower-cased words of ``text`` in order, stopwords dropped, at most MAX_TERMS."""
    words = list(dict.fromkeys(word.casefold() for word in _WORD.findall(text)))
    content = [word for word in words if word not in STOPWORDS]
    return (content or words)[:MAX_TERMS]


def match_expression(text: str) -> str | None:
    """An FTS5 MATCH expression OR-ing the quoted terms of ``text``; None if it has none."""
    terms = query_terms(text)
    return " OR ".join(f'"{term}"' for term in terms) if terms else None
