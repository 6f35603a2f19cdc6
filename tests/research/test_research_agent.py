"""The research agent with the scripted model: every path of the issue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docuchat.agent import JsonlTrace, Limits
from docuchat.errors import ModelHTTPError
from docuchat.models import ScriptedModel
from docuchat.models.base import ModelRequest, ModelResponse, ToolResultsMessage
from docuchat.models.scripted import call, calls, reply
from docuchat.research import ResearchAgent
from docuchat.search.hybrid import HybridSearcher


def _last_results(request: ModelRequest) -> list[dict[str, Any]]:
    message = request.messages[-1]
    assert isinstance(message, ToolResultsMessage)
    # A repeated call's result carries a note after the JSON, hence raw_decode.
    decode = json.JSONDecoder().raw_decode
    return [
        decode(r.content)[0] if not r.is_error else {"error": r.content} for r in message.results
    ]


def _open_first_hit(request: ModelRequest) -> ModelResponse:
    hit = _last_results(request)[0]["hits"][0]
    return call("open_citation", docId=hit["docId"], chunkId=hit["chunkId"])


def _agent(
    searcher: HybridSearcher, steps: list[Any], **kwargs: Any
) -> tuple[ResearchAgent, ScriptedModel]:
    model = ScriptedModel(steps)
    return ResearchAgent(searcher, model, owner="alice", **kwargs), model


def test_answer_cites_an_opened_passage_and_is_verified(searcher: HybridSearcher) -> None:
    agent, model = _agent(
        searcher,
        [
            call("search_docs", query="Highlands market value"),
            _open_first_hit,
            reply("The Highlands estate was assessed at 2,300,000 pounds in February 2024 [1]."),
        ],
    )
    answer = agent.ask_sync("What is the Highlands estate worth?")
    assert answer.outcome == "answered" and not answer.fallback and not answer.forced
    assert [c.n for c in answer.citations] == [1]
    citation = answer.citations[0]
    assert citation.verified and citation.title == "Highlands Valuation Report"
    assert "2,300,000 pounds" in citation.quote
    document_text = searcher.store.document_text("alice", citation.doc_id)
    assert document_text[citation.start : citation.end] == citation.quote
    assert answer.verified_count == 1 and not answer.unsupported_claims
    search_result = _last_results(model.requests[1])[0]
    assert set(search_result["hits"][0]) == {
        "docId",
        "chunkId",
        "title",
        "page",
        "snippet",
        "score",
    }
    model.assert_all_consumed()


def test_a_failed_search_is_refined(searcher: HybridSearcher) -> None:
    def refine(request: ModelRequest) -> ModelResponse:
        assert _last_results(request)[0]["hits"] == []
        return call("search_docs", query="annual rent cottage")

    agent, _ = _agent(
        searcher,
        [
            call("search_docs", query="zzyzx qwerty"),
            refine,
            _open_first_hit,
            reply("The annual rent is 14,400 pounds, payable monthly in advance [1]."),
        ],
    )
    answer = agent.ask_sync("What is the rent?")
    assert answer.outcome == "answered" and answer.citations[0].verified
    steps = [e for e in answer.run.events if e.type == "tool_call_finished"]
    assert [s.output_summary.split(" ")[0] for s in steps] == ["Found", "Found", "Read"]
    assert steps[0].output_summary == "Found no passages"


def test_opening_two_passages_numbers_them_in_order(searcher: HybridSearcher) -> None:
    def open_both(request: ModelRequest) -> ModelResponse:
        hits = _last_results(request)[0]["hits"]
        by_title = {h["title"]: h for h in hits}
        a, b = by_title["Highlands Valuation Report"], by_title["Cottage Lease"]
        return calls(
            ("open_citation", {"docId": a["docId"], "chunkId": a["chunkId"]}),
            ("open_citation", {"docId": b["docId"], "chunkId": b["chunkId"]}),
        )

    agent, _ = _agent(
        searcher,
        [
            call("search_docs", query="cottage"),
            open_both,
            reply(
                "The valuer inspected the main house and the two cottages [1]. "
                "The lease of the east cottage runs for five years from 1 March 2022 [2]."
            ),
        ],
    )
    answer = agent.ask_sync("Tell me about the cottages.")
    assert [(c.n, c.title, c.verified) for c in answer.citations] == [
        (1, "Highlands Valuation Report", True),
        (2, "Cottage Lease", True),
    ]


def test_a_repeated_call_is_not_run_twice(searcher: HybridSearcher) -> None:
    agent, _ = _agent(
        searcher,
        [
            call("search_docs", query="roof"),
            call("search_docs", query="roof"),
            _open_first_hit,
            reply("The roof of the main house was replaced in 2019 and is in good condition [1]."),
        ],
    )
    answer = agent.ask_sync("Roof?")
    finished = [e for e in answer.run.events if e.type == "tool_call_finished"]
    assert [e.repeated for e in finished] == [False, True, False]
    assert answer.run.usage.tool_calls == 2
    assert answer.citations[0].verified


def test_a_foreign_chunk_id_gets_the_same_error_as_an_unknown_one(
    searcher: HybridSearcher,
) -> None:
    bob_hit = searcher.search("bob", "Project Falcon launch", k=1)[0]
    agent, model = _agent(
        searcher,
        [
            calls(
                ("open_citation", {"docId": bob_hit.doc_id, "chunkId": bob_hit.chunk_id}),
                ("open_citation", {"docId": "nope", "chunkId": "nope-0000"}),
            ),
            reply("The documents do not say when Project Falcon launches."),
        ],
    )
    answer = agent.ask_sync("When does Project Falcon launch?")
    errors = list(model.requests[1].messages[-1].results)  # type: ignore[union-attr]
    assert all(r.is_error for r in errors)
    foreign, unknown = (
        r.content.replace(bob_hit.chunk_id, "X").replace(bob_hit.doc_id, "Y") for r in errors
    )
    assert foreign == unknown.replace("nope-0000", "X").replace("'nope'", "'Y'")
    assert "9 September" not in json.dumps(answer.to_dict())
    assert answer.citations == ()


def test_a_citation_to_an_unopened_passage_is_removed_and_reported(
    searcher: HybridSearcher,
) -> None:
    agent, _ = _agent(
        searcher,
        [
            call("search_docs", query="Highlands value"),
            _open_first_hit,
            reply(
                "The estate was assessed at 2,300,000 pounds [1]. The lease is for ten years [4]."
            ),
        ],
    )
    answer = agent.ask_sync("Value and lease?")
    assert answer.removed_citations == (4,)
    assert "[4]" not in answer.answer and "[1]" in answer.answer
    assert answer.unsupported_claims == ("The lease is for ten years.",)


def test_an_unsupported_sentence_is_not_verified(searcher: HybridSearcher) -> None:
    agent, _ = _agent(
        searcher,
        [
            call("search_docs", query="Highlands value"),
            _open_first_hit,
            reply("The estate has a heated swimming pool and stables for twelve horses [1]."),
        ],
    )
    answer = agent.ask_sync("Facilities?")
    assert answer.citations[0].verified is False
    assert answer.verified_count == 0
    assert answer.unsupported_claims


def test_abstention_without_citations(searcher: HybridSearcher) -> None:
    agent, _ = _agent(
        searcher,
        [call("search_docs", query="swimming pool"), reply("The documents do not say.")],
    )
    answer = agent.ask_sync("Is there a pool?")
    assert answer.outcome == "answered" and answer.citations == () and not answer.unsupported_claims


def test_a_limit_without_an_answer_falls_back_to_the_pipeline(searcher: HybridSearcher) -> None:
    def pipeline_answer(request: ModelRequest) -> ModelResponse:
        assert request.tool_choice == "auto" and not request.tools
        opened = [m for m in request.messages if isinstance(m, ToolResultsMessage)][-1]
        assert json.loads(opened.results[0].content)["citation"] == 1
        return reply("The roof was replaced in 2019 and is in good condition [1].")

    limits = Limits(max_tool_calls=1, max_iterations=5)
    agent, model = _agent(
        searcher,
        [call("search_docs", query="a"), call("search_docs", query="b"), pipeline_answer],
        limits=limits,
    )
    answer = agent.ask_sync("roof condition")
    assert answer.fallback and answer.mode == "pipeline"
    assert answer.fallback_reason.startswith("max_tool_calls")
    assert answer.outcome == "answered" and answer.citations[0].verified
    assert answer.to_dict()["fallback"] is True
    model.assert_all_consumed()


def test_a_model_error_falls_back_to_the_pipeline(searcher: HybridSearcher) -> None:
    agent, _ = _agent(
        searcher,
        [ModelHTTPError(500, "overloaded"), reply("The annual rent is 14,400 pounds [1].")],
    )
    answer = agent.ask_sync("annual rent")
    assert answer.fallback and "overloaded" in answer.fallback_reason
    assert answer.citations and answer.citations[0].verified


def test_a_fallback_keeps_both_runs_in_one_trace(searcher: HybridSearcher, tmp_path: Path) -> None:
    agent, _ = _agent(
        searcher,
        [ModelHTTPError(500, "overloaded"), reply("The annual rent is 14,400 pounds [1].")],
    )
    with JsonlTrace(tmp_path / "run.jsonl") as trace:
        answer = agent.ask_sync("annual rent", trace=trace)
    kept = [json.loads(line) for line in (tmp_path / "run.jsonl").read_text().splitlines()]
    assert answer.fallback and answer.failed_run is not None
    started = [e["run_id"] for e in kept if e["type"] == "run_started"]
    assert started == [answer.failed_run.run_id, answer.run.run_id]
    assert [e["type"] for e in kept if e["type"] in ("run_failed", "final_answer")] == [
        "run_failed",
        "final_answer",
    ]
    pipeline_steps = [e["name"] for e in kept if e["type"] == "tool_call_finished"]
    assert pipeline_steps[0] == "search_docs" and "open_citation" in pipeline_steps


def test_pipeline_mode_searches_opens_and_answers(searcher: HybridSearcher) -> None:
    agent, model = _agent(
        searcher,
        [reply("The lease runs for five years from 1 March 2022 [1].")],
        mode="pipeline",
    )
    answer = agent.ask_sync("How long is the cottage lease?")
    assert answer.mode == "pipeline" and not answer.fallback
    assert answer.citations[0].title == "Cottage Lease" and answer.citations[0].verified
    assert len(model.requests) == 1


def test_only_the_last_three_opened_passages_stay_in_full(searcher: HybridSearcher) -> None:
    def open_nth(n: int):  # type: ignore[no-untyped-def]
        def step(request: ModelRequest) -> ModelResponse:
            search = next(
                json.loads(r.content)
                for m in request.messages
                if isinstance(m, ToolResultsMessage)
                for r in m.results
                if '"hits"' in r.content
            )
            hit = search["hits"][n]
            return call("open_citation", docId=hit["docId"], chunkId=hit["chunkId"])

        return step

    agent, model = _agent(
        searcher,
        [call("search_docs", query="estate")] + [open_nth(i) for i in range(4)] + [reply("done")],
        limits=Limits(max_tool_calls=6, max_iterations=7),
    )
    hits = searcher.search("alice", "the", k=8)
    if len(hits) < 4:  # the fixture must give four passages to open
        raise AssertionError(f"need 4 hits, got {len(hits)}")
    agent.ask_sync("everything")
    opened = [
        r.content
        for m in model.requests[-1].messages
        if isinstance(m, ToolResultsMessage)
        for r in m.results
        if r.name == "open_citation"
    ]
    assert [c.startswith("[evicted]") for c in opened] == [True, False, False, False]


def test_concurrent_opens_are_numbered_in_call_order(searcher: HybridSearcher) -> None:
    def open_all(request: ModelRequest) -> ModelResponse:
        hits = _last_results(request)[0]["hits"]
        return calls(
            *[("open_citation", {"docId": h["docId"], "chunkId": h["chunkId"]}) for h in hits[:3]]
        )

    agent, model = _agent(searcher, [call("search_docs", query="estate"), open_all, reply("done")])
    agent.ask_sync("everything about the estate")
    opened_calls = model.requests[2].messages[-2].tool_calls  # type: ignore[union-attr]
    opened = model.requests[2].messages[-1].results  # type: ignore[union-attr]
    numbers = [json.loads(r.content)["citation"] for r in opened]
    assert numbers == [1, 2, 3]
    assert [json.loads(r.content)["chunkId"] for r in opened] == [
        c.arguments["chunkId"] for c in opened_calls
    ]


async def test_pipeline_steps_are_shown_as_tool_events(searcher: HybridSearcher) -> None:
    agent, _ = _agent(searcher, [reply("The annual rent is 14,400 pounds [1].")], mode="pipeline")
    events = [item async for item in agent.stream("annual rent of the cottage")]
    steps = [(e.type, e.name) for e in events if e.type.startswith("tool_call")]
    assert steps[:2] == [
        ("tool_call_started", "search_docs"),
        ("tool_call_finished", "search_docs"),
    ]
    assert ("tool_call_finished", "open_citation") in steps
    finished = [e for e in events if e.type == "tool_call_finished"]
    assert finished[0].output_summary.startswith("Found")
    assert finished[1].output_summary.startswith("Read [1]")
