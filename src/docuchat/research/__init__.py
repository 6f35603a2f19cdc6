"""The document research assistant: an agent that answers with verified citations."""

from docuchat.research.agent import DEFAULT_LIMITS, Answer, AnswerReady, ResearchAgent
from docuchat.research.citations import Citation, CitationRegistry, verify
from docuchat.research.tools import ResearchSession

__all__ = [
    "DEFAULT_LIMITS",
    "Answer",
    "AnswerReady",
    "Citation",
    "CitationRegistry",
    "ResearchAgent",
    "ResearchSession",
    "verify",
]
