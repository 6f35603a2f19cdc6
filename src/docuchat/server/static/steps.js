// Tool steps as they happen, Cursor-style: the tool, a spinner, then a check or a cross and
// what came back; each step opens to show its full input and output.
import { formatDuration, h, icon, ICONS } from "./dom.js";

const ACTION_ICONS = {
  searching: ICONS.search,
  reading: ICONS.book,
  analysing: ICONS.sparkle,
  summarising: ICONS.sparkle,
};

const STATUS_TEXT = { running: "Running", complete: "Done", error: "Failed" };

/** JSON shown pretty when it parses, as-is otherwise. */
function pretty(value) {
  if (value === null || value === undefined) return "";
  if (typeof value !== "string") return JSON.stringify(value, null, 2);
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

function statusMark(status) {
  if (status === "running") return h("span", { class: "spinner", "aria-hidden": "true" });
  return icon(status === "error" ? ICONS.cross : ICONS.check, "icon status-icon");
}

export class StepList {
  constructor() {
    this.el = h("ol", { class: "steps", "aria-live": "polite", "aria-label": "Steps" });
    this.items = new Map();
  }

  get size() {
    return this.items.size;
  }

  /** Add a step on "running"; fill the same row in on "complete" or "error". */
  update(event) {
    let item = this.items.get(event.step_id);
    if (!item) {
      item = this.create();
      this.items.set(event.step_id, item);
      this.el.append(item.el);
    }
    // The finishing event may leave out what the starting one said.
    item.step = { ...item.step, ...Object.fromEntries(Object.entries(event).filter(([, v]) => v != null)) };
    this.fill(item);
  }

  /** What the model said on its way, between the steps. */
  note(text) {
    this.el.append(h("li", { class: "step-note" }, text));
  }

  /** Mark the steps still running as stopped (the person cancelled the run). */
  stopRunning() {
    for (const item of this.items.values()) {
      if (item.step.tool_status === "running") {
        item.step = { ...item.step, tool_status: "error", message: "Stopped" };
        this.fill(item);
      }
    }
  }

  create() {
    const parts = {
      status: h("span", { class: "step-status" }),
      action: h("span", { class: "step-action" }),
      tool: h("code", { class: "step-tool" }),
      message: h("span", { class: "step-message" }),
      duration: h("span", { class: "step-duration" }),
      input: h("pre", { class: "code step-input" }),
      output: h("div", { class: "step-output-wrap" }),
    };
    const el = h(
      "li",
      { class: "step" },
      h(
        "details",
        {},
        h("summary", {}, parts.status, parts.action, parts.tool, parts.message, parts.duration,
          icon(ICONS.chevron, "icon step-chevron")),
        h("div", { class: "step-body" }, h("h4", {}, "Input"), parts.input, h("h4", {}, "Output"),
          parts.output),
      ),
    );
    return { el, parts, step: {} };
  }

  fill({ el, parts, step }) {
    const status = step.tool_status;
    el.className = `step step-${status}`;
    el.dataset.stepId = step.step_id;
    el.dataset.status = status;
    parts.status.replaceChildren(statusMark(status),
      h("span", { class: "visually-hidden" }, `${STATUS_TEXT[status] || status}: `));
    parts.action.replaceChildren(icon(ACTION_ICONS[step.action_type] || ICONS.sparkle));
    parts.tool.textContent = step.tool_name;
    parts.message.textContent = step.message || step.tool_output || "";
    parts.duration.textContent = formatDuration(step.duration_ms);
    parts.input.textContent = pretty(step.tool_input ?? {});
    const output = step.detail ?? step.tool_output;
    parts.output.replaceChildren(
      output
        ? h("pre", { class: "code step-output" }, pretty(output))
        : h("p", { class: "hint" }, status === "running" ? "Running…" : "No output."),
    );
  }
}
