"""How runtime events become stream steps: messages, action types, errors."""

from __future__ import annotations

import json

import pytest

from docuchat.agent import ModelRequested, TextDelta, ToolCallFinished, ToolCallStarted
from docuchat.server.stream import AnswerDeltaEvent, StepEvent, StepTranslator


def started(name: str, **arguments: object) -> ToolCallStarted:
    return ToolCallStarted(run_id="r", call_id=f"c-{name}", name=name, input=arguments, iteration=1)


def finished(
    name: str, output: object, *, ok: bool = True, repeated: bool = False
) -> ToolCallFinished:
    text = output if isinstance(output, str) else json.dumps(output)
    return ToolCallFinished(
        run_id="r",
        call_id=f"c-{name}",
        name=name,
        input={},
        output=text,
        output_summary=text[:40],
        ok=ok,
        duration_ms=12.345,
        iteration=1,
        repeated=repeated,
    )


def step(translator: StepTranslator, event: ToolCallStarted | ToolCallFinished) -> StepEvent:
    translated = translator.translate(event)
    assert isinstance(translated, StepEvent)
    return translated


HITS = {
    "hits": [
        {"docId": "d1", "title": "Valuation Report"},
        {"docId": "d1", "title": "Valuation Report"},
        {"docId": "d2", "title": "Lease"},
    ]
}


def test_a_search_then_a_read_name_what_was_found() -> None:
    steps = StepTranslator()
    assert step(steps, started("search_docs", query="value")).message == "Searching for: value"
    found = step(steps, finished("search_docs", HITS))
    assert (found.message, found.tool_status, found.duration_ms) == (
        "Found 3 passages in 2 documents",
        "complete",
        12.3,
    )
    reading = step(steps, started("open_citation", docId="d2", chunkId="c"))
    assert (reading.message, reading.action_type) == ("Reading a passage of Lease", "reading")
    read = step(steps, finished("open_citation", {"title": "Lease", "page": 2, "citation": 1}))
    assert read.message == "Read Lease, page 2"


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ({"hits": []}, "Found no passages"),
        ({"hits": [{"docId": "d", "title": "T"}]}, "Found 1 passage in 1 document"),
        ("not json", "Finished search_docs"),
    ],
)
def test_search_results_are_counted_in_words(output: object, message: str) -> None:
    assert step(StepTranslator(), finished("search_docs", output)).message == message


@pytest.mark.parametrize(
    ("name", "arguments", "output", "action", "running", "done"),
    [
        (
            "read_document",
            {"docId": "d9"},
            {"title": "Survey", "page": 3},
            "reading",
            "Reading a document",
            "Read Survey, page 3",
        ),
        (
            "get_document_summary",
            {"docId": "d9"},
            {"title": "Survey", "pages": 7},
            "summarising",
            "Summarising a document",
            "Summarised Survey (7 pages)",
        ),
        ("weather", {"city": "Oslo"}, "sunny", "analysing", "Running weather", "Finished weather"),
    ],
)
def test_every_tool_gets_an_action_type_and_messages(
    name: str, arguments: dict[str, str], output: object, action: str, running: str, done: str
) -> None:
    steps = StepTranslator()
    first, last = step(steps, started(name, **arguments)), step(steps, finished(name, output))
    assert (first.action_type, last.action_type) == (action, action)
    assert (first.message, last.message) == (running, done)
    assert (first.tool_status, first.tool_output, first.detail) == ("running", None, None)
    assert last.detail == (output if isinstance(output, str) else json.dumps(output))


def test_a_failed_tool_is_an_error_step_with_the_reason() -> None:
    failed = step(
        StepTranslator(),
        finished("open_citation", "Error: no passage 'x' is available to you", ok=False),
    )
    assert failed.tool_status == "error"
    assert failed.message == "open_citation failed: no passage 'x' is available to you"


def test_a_repeated_call_says_so() -> None:
    repeated = step(StepTranslator(), finished("search_docs", {"hits": []}, repeated=True))
    assert repeated.message == "Found no passages (repeated call, answered from memory)"


def test_answer_text_is_numbered_by_the_model_call_that_wrote_it() -> None:
    steps = StepTranslator()
    deltas = []
    for call in (1, 2):
        request = ModelRequested(
            run_id="r",
            attempt=1,
            iteration=call,
            purpose="step",
            message_count=1,
            estimated_input_tokens=1,
        )
        assert steps.translate(request) is None
        deltas.append(steps.translate(TextDelta(run_id="r", text=f"text {call}")))
    assert deltas == [
        AnswerDeltaEvent(text="text 1", model_call=1),
        AnswerDeltaEvent(text="text 2", model_call=2),
    ]
