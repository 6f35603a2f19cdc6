"""The document research assistant: an agent that answers with verified citations."""

from docuchat.research.agent import (
    DEFAULT_LIMITS,
    NO_ANSWER,
    NOT_ADDRESSED,
    OWN_TOOL_NAMES,
    Answer,
    AnswerReady,
    Failure,
    Presentation,
    ResearchAgent,
)
from docuchat.research.citations import Citation, CitationRegistry, verify
from docuchat.research.detail import research_limits
from docuchat.research.models import research_model
from docuchat.research.tools import (
    DocumentOverview,
    OpenedPassage,
    ResearchSession,
    SearchResults,
)

__all__ = [
    "DEFAULT_LIMITS",
    "NOT_ADDRESSED",
    "NO_ANSWER",
    "OWN_TOOL_NAMES",
    "Answer",
    "AnswerReady",
    "Citation",
    "CitationRegistry",
    "DocumentOverview",
    "Failure",
    "OpenedPassage",
    "Presentation",
    "ResearchAgent",
    "ResearchSession",
    "SearchResults",
    "research_limits",
    "research_model",
    "verify",
]
