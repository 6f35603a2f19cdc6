// The conversation: questions, live tool steps, streamed answers with citations, cancel.
import { renderAnswer, renderSources } from "./answer.js";
import { formatDuration, h, plural } from "./dom.js";
import { StepList } from "./steps.js";

const OUTCOME_WORDS = {
  max_iterations: "the step limit was reached",
  max_tool_calls: "the tool-call limit was reached",
  max_validation_attempts: "the answer kept failing validation",
  timeout: "the time limit was reached",
  token_budget: "the token budget ran out",
  cancelled: "the run was stopped",
  model_error: "the model failed",
  stuck: "the model kept repeating itself",
  invalid_response: "the model's reply could not be read",
  context_overflow: "the request did not fit the model's context window",
};

function outcomeText(outcome) {
  return OUTCOME_WORDS[outcome] || outcome;
}

function note(kind, label, text) {
  return h("p", { class: `note note-${kind}` }, h("span", { class: `badge badge-${kind}` }, label), text);
}

/** The labels under an answer: forced, reminded, extractive or pipeline fallback, removed
 * citations, unsupported claims. */
function answerNotes(result) {
  const notes = [];
  if (result.forced) {
    notes.push(note("warn", "Forced answer",
      `${capitalise(outcomeText(result.outcome))}, so this answer was written from what had been found so far.`));
  } else if (result.outcome && result.outcome !== "answered") {
    const why = result.model_error ? `: ${result.model_error}` : "";
    notes.push(note("warn", "Incomplete", `${capitalise(outcomeText(result.outcome))}${why}.`));
  }
  if (result.mode_reason) {
    notes.push(note("info", "Pipeline", `${capitalise(result.mode_reason)}.`));
  }
  if (result.reminded) {
    notes.push(note("info", "Reminded",
      "The model answered without searching the documents and was asked to search first."));
  }
  if (result.extractive) {
    notes.push(note("warn", "Extractive answer",
      `The model failed${result.fallback_reason ? ` (${result.fallback_reason})` : ""}; `
      + "this answer quotes the passages it had read."));
  } else if (result.fallback) {
    notes.push(note("info", "Pipeline fallback",
      `The agent could not finish${result.fallback_reason ? ` (${result.fallback_reason})` : ""}; `
      + "a fixed search-and-read pipeline answered instead."));
  }
  if (result.removed_citations?.length) {
    const numbers = result.removed_citations.map((n) => `[${n}]`).join(", ");
    notes.push(note("info", "Citations removed", `${numbers} pointed at passages the run never opened.`));
  }
  if (result.presentation === "partial" && result.relevance) {
    const missing = result.relevance.parts.filter((p) => !p.addressed_by.length).map((p) => `“${p.asks}”`);
    notes.push(note("warn", "Partial answer",
      `Answers ${result.relevance.parts_addressed} of ${plural(result.relevance.parts.length, "part")} `
      + `of the question; not addressed: ${missing.join(", ")}.`));
  }
  if (result.unsupported_claims?.length) {
    notes.push(h("div", { class: "note note-warn" },
      h("span", { class: "badge badge-warn" }, "Unsupported"),
      "These sentences have no verified citation:",
      h("ul", { class: "claims" }, result.unsupported_claims.map((c) => h("li", {}, c)))));
  }
  return notes;
}

function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** One question and its response. */
class Turn {
  constructor(question, onCite) {
    this.onCite = onCite;
    this.steps = new StepList();
    this.started = performance.now();
    this.text = "";
    this.status = h("p", { class: "turn-status", role: "status" });
    this.answer = h("div", { class: "answer" });
    this.footer = h("div", { class: "answer-footer" });
    this.el = h(
      "article",
      { class: "turn" },
      h("div", { class: "question" }, h("p", {}, question)),
      h("div", { class: "response" }, this.steps.el, this.status, this.answer, this.footer),
    );
  }

  working(text) {
    this.el.classList.add("is-running");
    this.status.replaceChildren(h("span", { class: "spinner", "aria-hidden": "true" }), text);
  }

  step(event) {
    this.keepNote();
    this.steps.update(event);
    this.working(event.tool_status === "running" ? "Working…" : "Thinking…");
  }

  /** Model text streams here; text of a model call that went on to use tools was a note. */
  delta(event) {
    if (event.model_call !== this.modelCall) this.keepNote();
    this.modelCall = event.model_call;
    if (!this.text) {
      this.working("Writing…");
      this.answer.classList.add("is-streaming");
    }
    this.text += event.text;
    this.answer.textContent = this.text;
  }

  keepNote() {
    if (!this.text.trim()) return;
    this.steps.note(this.text.trim());
    this.text = "";
    this.answer.replaceChildren();
    this.answer.classList.remove("is-streaming");
  }

  /** The final event: the verified answer replaces the streamed text. */
  final(result) {
    this.el.classList.remove("is-running");
    this.answer.classList.remove("is-streaming");
    this.render(result);
    const parts = [
      `Worked for ${formatDuration(performance.now() - this.started)}`,
      this.steps.size ? plural(this.steps.size, "step") : null,
      result.citations.length
        ? `${result.verified_citations ?? result.citations.filter((c) => c.verified).length} of `
          + `${plural(result.citations.length, "citation")} verified`
        : null,
      result.citations.some((c) => c.addresses !== null && c.addresses !== undefined)
        ? `${result.citations.filter((c) => c.verified && c.addresses).length} answering the question`
        : null,
    ];
    this.status.replaceChildren(h("span", { class: "visually-hidden" }, "Answer ready. "),
      parts.filter(Boolean).join(" · "));
  }

  /** A past turn as it was: its kept steps, each after the model's note on its way. */
  restore(stored) {
    for (const step of stored.steps || []) {
      if (step.note) this.steps.note(step.note);
      this.steps.update(step);
    }
    this.render(stored);
  }

  /** An answer as stored (a past turn, or the final event). An answer whose citations do
   * not address the question is shown as related reading under "No answer", not as an answer. */
  render(result) {
    const citations = result.citations || [];
    const content = result.answer
      ? renderAnswer(result.answer, citations, result.claims || [], this.onCite)
      : [h("p", { class: "hint" }, "No answer.")];
    const unanswered = result.presentation === "not_an_answer";
    this.answer.classList.toggle("answer-related", unanswered);
    this.answer.replaceChildren(
      ...(unanswered
        ? [note("warn", "No answer", "The passages found do not address the question. Related passages:"),
            ...content]
        : content),
    );
    this.footer.replaceChildren(...answerNotes(result), renderSources(citations, this.onCite) || "");
  }

  stopped() {
    this.el.classList.remove("is-running");
    this.answer.classList.remove("is-streaming");
    this.footer.replaceChildren(note("info", "Stopped", "You stopped this run."));
    this.status.replaceChildren();
    this.steps.stopRunning();
  }

  failed(message) {
    this.el.classList.remove("is-running");
    this.answer.classList.remove("is-streaming");
    this.status.replaceChildren();
    this.footer.replaceChildren(h("p", { class: "form-error", role: "alert" }, message));
  }
}

export class Chat {
  constructor(api, {
    thread, empty, form, question, mode, detail, tools, send, cancel, onConversation, onCite,
  }) {
    this.api = api;
    this.thread = thread;
    this.empty = empty;
    this.question = question;
    this.mode = mode;
    this.detail = detail;
    this.tools = tools;
    this.send = send;
    this.cancelButton = cancel;
    this.onConversation = onConversation;
    this.onCite = onCite;
    this.conversationId = null;
    this.run = null;
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit();
    });
    question.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submit();
      }
    });
    question.addEventListener("input", () => this.fitQuestion());
    cancel.addEventListener("click", () => this.cancel());
  }

  fitQuestion() {
    this.question.style.height = "auto";
    this.question.style.height = `${Math.min(this.question.scrollHeight, 200)}px`;
  }

  get busy() {
    return this.run !== null;
  }

  clear() {
    this.thread.replaceChildren(this.empty);
    this.empty.hidden = false;
  }

  startNew() {
    if (this.busy) this.cancel();
    this.conversationId = null;
    this.clear();
    this.question.focus();
  }

  async open(id) {
    if (this.busy) this.cancel();
    const conversation = await this.api.conversation(id);
    this.conversationId = conversation.id;
    this.clear();
    this.empty.hidden = conversation.turns.length > 0;
    for (const stored of conversation.turns) {
      const turn = new Turn(stored.question, this.onCite);
      turn.restore(stored);
      this.thread.append(turn.el);
    }
    this.thread.lastElementChild?.scrollIntoView({ block: "end" });
  }

  submit() {
    const text = this.question.value.trim();
    if (!text || this.busy) return;
    this.question.value = "";
    this.fitQuestion();
    this.ask(text);
  }

  setBusy(busy) {
    this.send.hidden = busy;
    this.cancelButton.hidden = !busy;
    this.thread.setAttribute("aria-busy", String(busy));
  }

  async ask(text) {
    const turn = new Turn(text, this.onCite);
    this.empty.hidden = true;
    this.thread.append(turn.el);
    turn.working("Thinking…");
    turn.el.scrollIntoView({ block: "start", behavior: "smooth" });
    const run = { id: null, controller: new AbortController(), turn, cancelled: false };
    this.run = run;
    this.setBusy(true);
    try {
      await this.api.ask(
        {
          question: text,
          conversationId: this.conversationId,
          mode: this.mode.value,
          research: { detail: this.detail.value, tools: this.tools.value },
        },
        (event) => this.handle(run, event),
        run.controller.signal,
      );
      if (turn.el.classList.contains("is-running")) turn.failed("The answer stream ended early.");
    } catch (error) {
      if (!run.cancelled) turn.failed(error.message);
    } finally {
      if (this.run === run) {
        this.run = null;
        this.setBusy(false);
      }
    }
  }

  handle(run, event) {
    switch (event.type) {
      case "run":
        run.id = event.run_id;
        if (event.conversation_id && event.conversation_id !== this.conversationId) {
          this.conversationId = event.conversation_id;
          this.onConversation(event.conversation_id);
        }
        break;
      case "step":
        run.turn.step(event);
        break;
      case "answer_delta":
        run.turn.delta(event);
        break;
      case "final":
        run.turn.final(event);
        if (event.conversation_id) this.onConversation(event.conversation_id);
        break;
      case "error":
        run.turn.failed(event.message || "The run failed.");
        break;
      default:
        break; // events this page does not show
    }
  }

  cancel() {
    const run = this.run;
    if (!run) return;
    run.cancelled = true;
    if (run.id) this.api.cancelRun(run.id).catch(() => {}); // the abort below cancels it too
    run.controller.abort();
    run.turn.stopped();
    this.run = null;
    this.setBusy(false);
    this.question.focus();
  }
}
