"""The public names of each package, pinned exactly: adding or removing one is a decision."""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "docuchat": {"__version__"},
    "docuchat.agent": {
        "SUBMIT_TOOL",
        "Action",
        "Agent",
        "AgentStream",
        "AttemptStarted",
        "CallbackError",
        "Callbacks",
        "Cancellation",
        "ContextEvicted",
        "ErrorCode",
        "Event",
        "FinalAnswer",
        "JsonlTrace",
        "LimitAction",
        "LimitReached",
        "Limits",
        "ModelCall",
        "ModelRequested",
        "ModelResponded",
        "Outcome",
        "OutputTool",
        "Price",
        "RunContext",
        "RunFailed",
        "RunResult",
        "RunStarted",
        "TextDelta",
        "Tool",
        "ToolCallFinished",
        "ToolCallStarted",
        "ToolOutput",
        "TraceSink",
        "Usage",
        "ValidationFailed",
        "event_to_dict",
        "tool",
    },
    "docuchat.models": {
        "AssistantMessage",
        "Message",
        "Model",
        "ModelRequest",
        "ModelResponse",
        "ScriptedModel",
        "StreamItem",
        "TextChunk",
        "TokenUsage",
        "ToolCall",
        "ToolResult",
        "ToolResultsMessage",
        "ToolSpec",
        "UserMessage",
        "get_model",
    },
    "docuchat.research": {
        "DEFAULT_LIMITS",
        "NOT_ADDRESSED",
        "NO_ANSWER",
        "Answer",
        "AnswerReady",
        "Citation",
        "CitationRegistry",
        "DocumentOverview",
        "Failure",
        "OWN_TOOL_NAMES",
        "OpenedPassage",
        "Presentation",
        "ResearchAgent",
        "ResearchSession",
        "SearchResults",
        "research_limits",
        "research_model",
        "verify",
    },
    "docuchat.store": {
        "AddResult",
        "AddStatus",
        "ChunkRecord",
        "DocumentFilter",
        "DocumentRecord",
        "Hit",
        "MetadataValue",
        "SQLiteStore",
        "Store",
        "TextToEmbed",
        "Vector",
        "open_store",
    },
    "docuchat.search": {
        "DEFAULT_RRF_K",
        "MODES",
        "Fused",
        "Fusion",
        "HybridConfig",
        "HybridSearcher",
        "Mode",
        "RankedChunk",
        "SearchResult",
        "Snippet",
        "convex_fusion",
        "make_snippet",
        "reciprocal_rank_fusion",
    },
    "docuchat.embeddings": {
        "Embedder",
        "HashingEmbedder",
        "OnnxEmbedder",
        "OpenAIEmbedder",
        "Purpose",
        "SentenceTransformerEmbedder",
        "Vectors",
        "get_embedder",
        "l2_normalize",
        "prepare_for_queries",
    },
    "docuchat.server": {"ServerSettings", "create_app"},
    "docuchat.agent.mcp": {
        "MCPServerConfig",
        "MCPServerConnection",
        "MCPServerUnavailable",
        "MCPToolError",
        "MCPToolResult",
        "MCPToolbox",
        "Route",
        "mcp_tool",
        "route_tools",
    },
    "docuchat.mcp_server": {"TOOLS", "AgentFor", "build_server"},
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_public_names_are_exactly_these(module: str) -> None:
    imported = importlib.import_module(module)
    assert set(imported.__all__) == PUBLIC[module]
    assert len(imported.__all__) == len(set(imported.__all__)), "no name listed twice"
    for name in imported.__all__:
        assert hasattr(imported, name), name


def test_one_text_delta() -> None:
    """The runtime's event is ``TextDelta``; a model streams ``TextChunk`` pieces."""
    agent = importlib.import_module("docuchat.agent")
    models = importlib.import_module("docuchat.models")
    assert agent.TextDelta.__module__ == "docuchat.agent.events"
    assert not hasattr(models, "TextDelta")
