"""The search a follow-up question needs: its own words and the conversation's subject.

"And what about Brightline?" after "What is the market value of the Highlands
estate?" means the market value of Brightline: searched alone it finds anything
about Brightline. A model in agent mode writes its own queries from the whole
conversation; the fixed pipeline (and the fallback) search with this instead.

A question is a follow-up when it leans on the one before: it opens with "and",
"what about" and the like, refers back ("it", "they", "that"...), or has at
most two words of its own that carry meaning. Its query is its own words, then
the earlier question's, less the names a new name takes the place of
("Highlands" when the follow-up names "Brightline").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docuchat.models.base import Message, UserMessage
from docuchat.research.text import FIRST_PERSON, STOPWORDS, words

_OPENERS = re.compile(r"^\s*(?:and|but|also|so|then|what about|how about|what of)\b", re.I)
_BACK_REFERENCES = frozenset(
    "it its they them their theirs this that these those he him his she her there same".split()
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]*")
_FEW_WORDS = 2


def search_query(question: str, history: Sequence[Message]) -> str:
    """What to search for ``question``, asked after ``history`` (``question`` itself unless
    it is a follow-up of an earlier question of the person's)."""
    earlier = _last_question(history)
    if earlier is None or not is_follow_up(question):
        return question
    own = _meaningful(question)
    replaced = _names(earlier) if _names(question) else set()
    carried = [w for w in _meaningful(earlier) if w not in replaced]
    return " ".join(dict.fromkeys([*own, *carried]))


def is_follow_up(question: str) -> bool:
    said = words(question)
    return (
        bool(_OPENERS.match(question))
        or not _BACK_REFERENCES.isdisjoint(said)
        or len(_meaningful(question)) <= _FEW_WORDS
    )


def _last_question(history: Sequence[Message]) -> str | None:
    asked = [m.content for m in history if isinstance(m, UserMessage) and m.origin == "user"]
    return asked[-1] if asked else None


def _meaningful(text: str) -> list[str]:
    """The words that carry meaning, in order, as written (names keep their case)."""
    return [w for w in re.findall(r"[^\W_]+(?:['’][^\W_]+)*", text) if w.lower() not in STOPWORDS]


def _names(text: str) -> set[str]:
    """Capitalised words past a sentence's first: the names a question is about."""
    return {m.group(0) for m in _NAME.finditer(text.strip())} - FIRST_PERSON
