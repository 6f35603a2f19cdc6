"""The web page end to end: sign in, upload, ask, live steps, citations, cancel, conversations."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from playwright.sync_api import FilePayload, Page, Request, expect

from docuchat.errors import ModelHTTPError
from docuchat.models import Model
from docuchat.models.base import ModelRequest, ModelResponse, ToolResultsMessage
from docuchat.models.scripted import ScriptedModel, call, calls, reply

from .conftest import HANDBOOK, PDF, LiveServer, ask, screenshot, sign_in

LEAVE_QUESTION = "How many days of annual leave do full-time employees get?"

# Records what the page showed over time, as a person would have seen it: every status a
# step row had before its last one, and when the first step and the first citation appeared.
WATCH_PAGE = """
window.__seen = { statuses: [], uploadStates: [], firstStepAt: null, firstCitationAt: null };
new MutationObserver((records) => {
  const seen = window.__seen;
  for (const r of records) {
    if (r.type === "attributes" && r.oldValue) {
      seen.statuses.push([r.target.dataset.stepId, r.oldValue]);
    }
  }
  const state = document.querySelector(".upload-state")?.textContent;
  if (state && state !== seen.uploadStates.at(-1)) seen.uploadStates.push(state);
  if (seen.firstStepAt === null && document.querySelector("li.step")) {
    seen.firstStepAt = performance.now();
  }
  if (seen.firstCitationAt === null && document.querySelector(".answer .cite")) {
    seen.firstCitationAt = performance.now();
  }
}).observe(document, {
  subtree: true, childList: true, characterData: true,
  attributes: true, attributeOldValue: true, attributeFilter: ["data-status"],
});
"""


@contextmanager
def model_in_use(server: LiveServer, model: Model) -> Iterator[None]:
    services = server.app.state.services
    previous, services.model = services.model, model
    try:
        yield
    finally:
        services.model = previous


def seen(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("window.__seen")
    return result


def last_tool_result(request: ModelRequest) -> dict[str, Any]:
    message = request.messages[-1]
    assert isinstance(message, ToolResultsMessage)
    result: dict[str, Any] = json.loads(message.results[0].content)
    return result


def test_a_bad_key_is_refused_and_a_good_one_is_remembered_until_sign_out(
    page: Page, server: LiveServer
) -> None:
    name, key = server.new_user()
    page.goto(server.url)
    page.get_by_label("API key").fill("not-a-key")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text(
        "That API key was not accepted. Check it and try again."
    )
    expect(page.get_by_label("API key")).to_have_attribute("aria-invalid", "true")
    screenshot(page, "sign-in-refused")

    sign_in(page, server, key)
    expect(page.locator("#user-name")).to_have_text(name)
    page.reload()
    expect(page.locator("#user-name")).to_have_text(name)  # the key was kept

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("API key")).to_be_visible()
    page.reload()
    expect(page.get_by_label("API key")).to_be_visible()  # and forgotten on sign out
    assert page.evaluate("sessionStorage.length + localStorage.length") == 0


def test_upload_ask_watch_the_steps_and_open_a_cited_passage(
    page: Page, server: LiveServer
) -> None:
    _name, key = server.new_user()
    page.add_init_script(WATCH_PAGE)
    sign_in(page, server, key)
    expect(page.locator("#no-documents-hint")).to_be_visible()

    # Upload two files with the picker, on a slow uplink so that upload progress shows.
    page.get_by_role("button", name="Documents").click()
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 40_000},
    )
    page.locator("#file-input").set_input_files([HANDBOOK, PDF])
    upload = page.locator(".upload")
    expect(upload).to_have_attribute("data-phase", "done")
    cdp.send("Network.disable")
    expect(upload.locator(".upload-state")).to_have_text("2 documents ready")
    expect(upload.locator(".result-ok")).to_have_count(2)
    states = seen(page)["uploadStates"]
    assert any(s.startswith("Uploading… ") and s != "Uploading… 100%" for s in states), states
    assert any(s.startswith("Reading and indexing") for s in states), states
    rows = page.locator("#documents-body tr")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="Staff Handbook")).to_contain_text("Markdown")
    expect(rows.filter(has_text="PDF")).to_have_count(1)
    expect(page.locator("#document-count")).to_have_text("2")
    screenshot(page, "documents")

    # Ask: the steps appear while the run goes on, then the answer with its citation.
    page.get_by_role("button", name="Chat").click()
    ask(page, LEAVE_QUESTION)
    steps = page.locator("li.step")
    expect(steps.first.locator(".step-tool")).to_have_text("search_docs")
    expect(page.get_by_role("button", name="Stop")).to_be_visible()
    screenshot(page, "steps-streaming")
    chip = page.locator(".answer button.cite").first
    expect(chip).to_be_visible()
    screenshot(page, "answer")

    watched = seen(page)
    for step_id in steps.evaluate_all("rows => rows.map(r => r.dataset.stepId)"):
        assert [step_id, "running"] in watched["statuses"], "a step was never shown running"
    assert watched["firstCitationAt"] - watched["firstStepAt"] > 1.5 * 1000 * server.model.pause
    expect(steps).to_have_count(3)
    expect(steps.nth(0).locator(".step-message")).to_contain_text(
        "Found 2 passages in 2 documents: "
    )
    expect(steps.nth(1).locator(".step-tool")).to_have_text("open_citation")
    expect(steps.nth(1).locator(".step-message")).to_have_text("Read [1] Staff Handbook, page 1")
    expect(steps.locator(".status-icon")).to_have_count(3)
    expect(page.locator(".step-note").first).to_contain_text("Searching the documents for")
    expect(page.get_by_role("button", name="Ask")).to_be_visible()

    # A step opens to show its full input and output.
    steps.first.locator("summary").click()
    expect(steps.first.locator(".step-input")).to_contain_text('"query": "days annual leave')
    expect(steps.first.locator(".step-output")).to_contain_text('"title": "Staff Handbook"')

    # The citation is verified and looks it; it opens the passage with the span highlighted.
    expect(chip).to_have_class("cite cite-verified")
    expect(chip).to_have_attribute(
        "aria-label",
        "Source 1: Staff Handbook, page 1. Verified: the passage supports the sentence."
        " It addresses the question.",
    )
    expect(page.locator(".source")).to_contain_text("Verified")
    expect(page.locator(".source")).to_contain_text("Answers the question")
    chip.click()
    panel = page.locator("#passage-panel")
    expect(panel.locator(".passage-doc")).to_have_text("Staff Handbook")
    expect(panel.locator(".passage-meta")).to_contain_text("page 1")
    mark = panel.locator("mark.mark-verified")
    expect(mark).to_contain_text("Full-time employees get 25 days of annual leave per year")
    expect(page.locator("#passage-heading")).to_be_focused()
    screenshot(page, "passage")

    with server.client(key) as client:
        conversation_id = client.get("/api/conversations").json()["conversations"][0]["id"]
        citation = client.get(f"/api/conversations/{conversation_id}").json()["turns"][0][
            "citations"
        ][0]
        passage = client.get(f"/api/passages/{citation['chunk_id']}").json()
    start, end = (offset - passage["start"] for offset in citation["span"])
    assert mark.text_content() == passage["text"][start:end] == citation["quote"]

    # Keyboard: Escape closes the panel and gives focus back to the citation; Enter reopens.
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(chip).to_be_focused()
    page.keyboard.press("Enter")
    expect(mark).to_be_visible()

    page.emulate_media(color_scheme="dark")
    screenshot(page, "passage-dark")
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_role("button", name="Close the source panel").click()
    sidebar = page.get_by_role("complementary", name="Conversations")
    expect(sidebar).not_to_be_in_viewport()
    screenshot(page, "answer-phone-dark")
    page.get_by_role("button", name="Show conversations").click()
    expect(sidebar).to_be_in_viewport(ratio=1)
    screenshot(page, "conversations-phone-dark")


def ask_two_citations(
    page: Page, server: LiveServer, key: str, steps: list[Any], answer: str, question: str
) -> None:
    """Sign in and ask; the model takes ``steps``, then answers with two citation chips."""
    model = ScriptedModel([*steps, reply(answer)])
    with model_in_use(server, model):
        sign_in(page, server, key)
        ask(page, question)
        expect(page.locator(".answer button.cite")).to_have_count(2)
    model.assert_all_consumed()


def test_verified_and_unverified_citations_look_different(page: Page, server: LiveServer) -> None:
    _name, key = server.new_user()
    server.ingest(key, HANDBOOK, PDF)

    def open_both(request: ModelRequest) -> ModelResponse:
        """Open the handbook's passage first, then the other document's."""
        hits = last_tool_result(request)["hits"]
        chosen = sorted(hits, key=lambda h: h["title"] != "Staff Handbook")[:2]
        return calls(
            *(("open_citation", {"docId": h["docId"], "chunkId": h["chunkId"]}) for h in chosen)
        )

    ask_two_citations(
        page,
        server,
        key,
        [call("search_docs", query="annual leave crazy ones"), open_both],
        "Full-time employees get 25 days of annual leave per year [1]. "
        "Staff may bring their dogs to the office on Fridays [2].",
        "How much annual leave do staff get?",
    )

    verified, unverified = page.locator(".answer button.cite").all()
    expect(verified).to_have_class("cite cite-verified")
    expect(unverified).to_have_class("cite cite-unverified")
    expect(unverified).to_have_attribute(
        "title",
        re.compile(
            r"^Source 2: .+, page 1\. Not verified: the passage may not support the sentence"
        ),
    )
    assert verified.evaluate("e => getComputedStyle(e).borderStyle") == "solid"
    assert unverified.evaluate("e => getComputedStyle(e).borderStyle") == "dashed"
    assert verified.evaluate("e => getComputedStyle(e).color") != unverified.evaluate(
        "e => getComputedStyle(e).color"
    )
    expect(page.locator(".source").nth(1)).to_contain_text("Not verified")
    expect(page.locator(".note-warn")).to_contain_text(
        "Staff may bring their dogs to the office on Fridays"
    )
    expect(page.locator(".turn-status")).to_contain_text("1 of 2 citations verified")

    unverified.click()
    expect(page.locator(".passage-warning")).to_be_visible()
    screenshot(page, "unverified-citation")


def test_verified_quotes_that_do_not_address_the_question_are_not_shown_as_an_answer(
    page: Page, server: LiveServer
) -> None:
    _name, key = server.new_user()
    server.ingest(key, HANDBOOK)
    # A model quotes the handbook faithfully about the office, asked about a dress code.
    model = ScriptedModel(
        [
            call("search_docs", query="dress code office"),
            lambda request: call(
                "open_citation",
                docId=last_tool_result(request)["hits"][0]["docId"],
                chunkId=last_tool_result(request)["hits"][0]["chunkId"],
            ),
            reply("The office in Leeds is open from 7 am to 8 pm on weekdays [1]."),
        ]
    )
    with model_in_use(server, model):
        sign_in(page, server, key)
        ask(page, "What is the dress code at the Leeds office?")
        expect(page.locator(".answer button.cite")).to_have_count(1)
    model.assert_all_consumed()

    answer = page.locator(".answer")
    expect(answer).to_have_class(re.compile(r"\banswer-related\b"))
    expect(answer.locator(".note-warn .badge")).to_have_text("No answer")
    expect(answer.locator(".note-warn")).to_contain_text(
        "The passages found do not address the question. Related passages:"
    )
    chip = answer.locator("button.cite")
    expect(chip).to_have_class("cite cite-verified")  # the quote is faithful...
    expect(chip).to_have_attribute("title", re.compile(r"It does not address the question\.$"))
    source = page.locator(".source")
    expect(source).to_contain_text("Verified")
    expect(source).to_contain_text("Off the question")  # ...but not about what was asked
    expect(page.locator(".turn-status")).to_contain_text("0 answering the question")

    chip.click()
    expect(page.locator(".passage-warning")).to_contain_text(
        "This sentence does not address the question: it does not mention dress code"
    )
    screenshot(page, "not-an-answer")


def test_each_sentence_shows_its_own_verdict_for_a_passage_both_cite(
    page: Page, server: LiveServer
) -> None:
    """A supported sentence lends nothing to a sentence with a changed number beside it."""
    _name, key = server.new_user()
    server.ingest(key, HANDBOOK)

    def open_first(request: ModelRequest) -> ModelResponse:
        hit = last_tool_result(request)["hits"][0]
        return call("open_citation", docId=hit["docId"], chunkId=hit["chunkId"])

    ask_two_citations(
        page,
        server,
        key,
        [call("search_docs", query="annual leave"), open_first],
        "Full-time employees get 25 days of annual leave per year [1]. "
        "Full-time employees get 40 days of annual leave per year [1].",
        "How much annual leave do full-time employees get?",
    )
    supported, changed = page.locator(".answer button.cite").all()
    expect(supported).to_have_class("cite cite-verified")
    expect(changed).to_have_class("cite cite-unverified")
    expect(page.locator(".source")).to_have_count(1)
    expect(page.locator(".source").first).to_contain_text("Not verified")
    expect(page.locator(".note-warn")).to_contain_text("40 days")
    screenshot(page, "one-passage-two-verdicts")


def test_forced_answers_and_pipeline_fallbacks_are_labelled(page: Page, server: LiveServer) -> None:
    _name, key = server.new_user()
    server.ingest(key, HANDBOOK)

    def keeps_searching(request: ModelRequest) -> ModelResponse:
        if request.tools and request.tool_choice != "none":
            return call("search_docs", query=f"leave, try {len(request.messages)}")
        return reply("Full-time employees get 25 days of annual leave per year.")

    sign_in(page, server, key)
    with model_in_use(server, ScriptedModel(keeps_searching)):
        ask(page, "How much leave is there?")
        expect(page.locator(".turn").nth(0).locator(".answer")).to_contain_text("25 days")
    first = page.locator(".turn").nth(0)
    expect(first.locator(".badge")).to_have_text(["Forced answer", "Unsupported"])
    expect(first.locator(".note").first).to_contain_text(
        "limit was reached, so this answer was written from what had been found so far"
    )

    failing_then_answering = ScriptedModel(
        [
            ModelHTTPError(400, "the model refused the request"),
            reply("Full-time employees get 25 days of annual leave per year [1]."),
        ]
    )
    with model_in_use(server, failing_then_answering):
        ask(page, "How much leave do full-time staff get?")
        expect(page.locator(".turn").nth(1).locator(".answer .cite")).to_have_count(1)
    failing_then_answering.assert_all_consumed()
    second = page.locator(".turn").nth(1)
    expect(second.locator(".badge")).to_have_text(["Pipeline fallback"])
    expect(second.locator(".note")).to_contain_text("the model refused the request")
    screenshot(page, "labels")


def test_stop_cancels_the_run_on_the_server(
    page: Page, server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _name, key = server.new_user()
    server.ingest(key, HANDBOOK)
    monkeypatch.setattr(server.model, "pause", 5.0)
    cancels: list[str] = []
    page.on("request", lambda r: cancels.append(r.url) if r.url.endswith("/cancel") else None)
    sign_in(page, server, key)

    ask(page, LEAVE_QUESTION)
    expect(page.locator(".conversation")).to_have_count(1)  # the run has started
    started = time.monotonic()
    page.get_by_role("button", name="Stop").click()
    expect(page.locator(".turn .note")).to_contain_text("You stopped this run.")
    expect(page.get_by_role("button", name="Ask")).to_be_visible()
    expect(page.locator(".turn")).not_to_have_class("turn is-running")
    screenshot(page, "stopped")
    assert len(cancels) == 1

    with server.client(key) as client:
        conversation_id = client.get("/api/conversations").json()["conversations"][0]["id"]
        deadline = time.monotonic() + 5
        while not (turns := client.get(f"/api/conversations/{conversation_id}").json()["turns"]):
            assert time.monotonic() < deadline, "the cancelled run never ended"
            time.sleep(0.05)
    assert turns[0]["outcome"] == "cancelled"
    assert time.monotonic() - started < 4.0  # the model's pause was cut short


def test_follow_ups_continue_the_conversation_which_survives_a_reload(
    page: Page, server: LiveServer
) -> None:
    _name, key = server.new_user()
    server.ingest(key, HANDBOOK)
    asked: list[dict[str, Any]] = []

    def record(request: Request) -> None:
        if request.url.endswith("/api/ask"):
            asked.append(json.loads(request.post_data or "{}"))

    page.on("request", record)
    sign_in(page, server, key)
    ask(page, LEAVE_QUESTION)
    expect(page.locator(".turn .answer .cite")).to_have_count(1)
    ask(page, "How far in advance must leave be booked?")
    expect(page.locator(".turn").nth(1).locator(".answer")).to_contain_text("two weeks")

    assert asked[0]["conversation_id"] is None
    conversation_id = asked[1]["conversation_id"]
    assert conversation_id
    expect(page.locator(".conversation")).to_have_count(1)
    expect(page.locator(".conversation-meta")).to_contain_text("2 questions")
    assert page.url.endswith(f"#/c/{conversation_id}")

    page.reload()
    expect(page.locator(".turn")).to_have_count(2)
    expect(page.locator(".turn").nth(0).locator(".question")).to_have_text(LEAVE_QUESTION)
    expect(page.locator(".turn").nth(0).locator(".answer .cite-verified")).to_have_count(1)
    expect(page.locator(".conversation.is-active")).to_have_count(1)
    screenshot(page, "conversation-reloaded")

    page.get_by_role("button", name="New conversation").click()
    expect(page.locator(".turn")).to_have_count(0)
    expect(page.get_by_role("heading", name="What would you like to know?")).to_be_visible()
    expect(page.get_by_label("Your question")).to_be_focused()


def shown_steps(page: Page) -> list[dict[str, str]]:
    """The steps of every turn as the page shows them: notes, tools, messages, statuses."""
    rows: list[dict[str, str]] = page.locator(".turn .steps > li").evaluate_all(
        """items => items.map(li => li.classList.contains("step-note")
            ? {note: li.textContent}
            : {tool: li.querySelector(".step-tool").textContent,
               message: li.querySelector(".step-message").textContent,
               status: li.dataset.status,
               output: li.querySelector(".step-output")?.textContent ?? ""})"""
    )
    return rows


def test_a_reopened_conversation_shows_its_steps_as_they_were(
    page: Page, server: LiveServer
) -> None:
    _name, key = server.new_user()
    server.ingest(key, HANDBOOK)

    def open_best(request: ModelRequest) -> ModelResponse:
        best = last_tool_result(request)["hits"][0]
        opening = {"docId": best["docId"], "chunkId": best["chunkId"]}
        return calls(("open_citation", opening), text="Opening the best passage.")

    noted = ScriptedModel(
        [
            calls(("search_docs", {"query": "annual leave"}), text="I will search first."),
            open_best,
            reply("Full-time employees get 27 days of paid annual leave per year [1]."),
        ]
    )
    sign_in(page, server, key)
    with model_in_use(server, noted):
        ask(page, LEAVE_QUESTION)
        expect(page.locator(".turn .answer .cite")).to_have_count(1)
    expect(page.locator(".turn .step[data-status=complete]")).to_have_count(2)
    live = shown_steps(page)
    assert [row.get("note") or row["tool"] for row in live] == [
        "I will search first.",
        "search_docs",
        "Opening the best passage.",
        "open_citation",
    ]

    page.reload()
    expect(page.locator(".turn .step")).to_have_count(2)
    assert shown_steps(page) == live
    page.get_by_role("button", name="New conversation").click()
    page.locator(".conversation-open").first.click()
    expect(page.locator(".turn .step")).to_have_count(2)
    assert shown_steps(page) == live
    page.locator(".turn .step summary").first.click()
    expect(page.locator(".turn .step .step-output").first).to_contain_text('"hits"')
    screenshot(page, "conversation-reopened-steps")


def test_detail_and_rich_tools_are_chosen_in_the_composer(page: Page, server: LiveServer) -> None:
    _name, key = server.new_user()
    server.ingest(key, HANDBOOK)
    asked: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: (
            asked.append(json.loads(r.post_data or "{}")) if r.url.endswith("/api/ask") else 0
        ),
    )

    def read_both(request: ModelRequest) -> ModelResponse:
        hits = last_tool_result(request)["hits"]
        return call("read_multiple_documents", docIds=[h["docId"] for h in hits[:2]])

    reading = ScriptedModel(
        [call("search_docs", query="annual leave"), read_both, reply("27 days [1].")]
    )
    sign_in(page, server, key)
    page.get_by_label("Detail").select_option("brief")
    page.get_by_label("Tools").select_option("rich")
    with model_in_use(server, reading):
        ask(page, LEAVE_QUESTION)
        expect(page.locator(".turn .answer .cite")).to_have_count(1)

    assert asked[0]["research"] == {"detail": "brief", "tools": "rich"}
    read = page.locator(".step", has_text="read_multiple_documents")
    expect(read).to_have_attribute("data-status", "complete")
    expect(read.locator(".step-message")).to_contain_text("Read 1 document: [1]")


def test_dropped_files_upload_rejected_and_skipped_ones_say_why_and_delete_works(
    page: Page, server: LiveServer
) -> None:
    _name, key = server.new_user()
    sign_in(page, server, key)
    page.get_by_role("button", name="Documents").click()
    picker = page.locator("#file-input")

    picker.set_input_files(
        FilePayload(name="setup.exe", mimeType="application/octet-stream", buffer=b"MZ")
    )
    failed = page.locator(".upload").first
    expect(failed).to_have_attribute("data-phase", "failed")
    expect(failed.locator(".upload-state")).to_have_text("Failed")
    expect(failed.get_by_role("alert")).to_contain_text("setup.exe: .exe files are not supported")

    picker.set_input_files(
        [
            FilePayload(name=HANDBOOK.name, mimeType="text/markdown", buffer=HANDBOOK.read_bytes()),
            FilePayload(name="blank.md", mimeType="text/markdown", buffer=b"   \n"),
        ]
    )
    done = page.locator(".upload").first
    expect(done).to_have_attribute("data-phase", "done")
    expect(done.locator(".upload-state")).to_have_text("1 document ready, 1 skipped")
    expect(done.locator(".result-skipped")).to_contain_text("blank.md skipped: the file is empty")
    screenshot(page, "upload-errors")

    dropped = page.evaluate_handle(
        """() => {
          const files = new DataTransfer();
          files.items.add(new File(["The boiler is serviced every March."], "boiler.txt"));
          return files;
        }"""
    )
    page.locator("#dropzone").dispatch_event("drop", {"dataTransfer": dropped})
    expect(page.locator(".upload").first).to_have_attribute("data-phase", "done")
    expect(page.locator("#documents-body tr")).to_have_count(2)

    page.get_by_role("button", name="Delete Staff Handbook").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Staff Handbook")
    dialog.get_by_role("button", name="Delete").click()
    expect(page.locator("#documents-body tr")).to_have_count(1)
    with server.client(key) as client:
        titles = [d["title"] for d in client.get("/api/documents").json()["documents"]]
    assert titles == ["boiler"]
