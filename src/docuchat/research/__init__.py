"""The document research assistant: an agent that answers with verified citations."""

from docuchat.research.agent import DEFAULT_LIMITS, Answer, AnswerReady, Presentation, ResearchAgent
from docuchat.research.citations import Citation, CitationRegistry, verify
from docuchat.research.models import research_model
from docuchat.research.tools import (
    DocumentOverview,
    OpenedPassage,
    ResearchSession,
    SearchResults,
)

__all__ = [
    "DEFAULT_LIMITS",
    "Answer",
    "AnswerReady",
    "Citation",
    "CitationRegistry",
    "DocumentOverview",
    "OpenedPassage",
    "Presentation",
    "ResearchAgent",
    "ResearchSession",
    "SearchResults",
    "research_model",
    "verify",
]
