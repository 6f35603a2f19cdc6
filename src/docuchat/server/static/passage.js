// The side panel that shows a cited passage with the cited span highlighted.
import { addressingPill, verificationPill } from "./answer.js";
import { h } from "./dom.js";

/**
 * The passage's text split around the cited span. The span is in document offsets and the
 * passage starts at passage.start; a span outside the passage falls back to finding the quote.
 */
export function splitAtSpan(passage, span, quote) {
  const text = passage.text;
  let from = span[0] - passage.start;
  let to = span[1] - passage.start;
  if (!(from >= 0 && to <= text.length && from < to)) {
    from = quote ? text.indexOf(quote) : -1;
    to = from + (quote ? quote.length : 0);
  }
  if (from < 0) return [text, "", ""];
  return [text.slice(0, from), text.slice(from, to), text.slice(to)];
}

export class PassagePanel {
  constructor(api, { panel, body, heading, close }) {
    this.api = api;
    this.panel = panel;
    this.body = body;
    this.heading = heading;
    this.returnFocus = null;
    this.requestId = 0;
    close.addEventListener("click", () => this.close());
    panel.addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.close();
    });
  }

  async open(citation, trigger) {
    const id = ++this.requestId;
    this.returnFocus = trigger || null;
    this.panel.hidden = false;
    document.body.classList.add("panel-open");
    this.heading.textContent = `Source ${citation.n}`;
    this.body.replaceChildren(h("p", { class: "hint loading" }, "Loading the passage…"));
    this.heading.focus();
    try {
      const passage = await this.api.passage(citation.chunk_id);
      if (id === this.requestId) this.show(citation, passage);
    } catch (error) {
      if (id === this.requestId) {
        this.body.replaceChildren(h("p", { class: "form-error", role: "alert" }, error.message));
      }
    }
  }

  show(citation, passage) {
    let [before, cited, after] = splitAtSpan(passage, citation.span || [0, 0], citation.quote);
    if (!citation.verified && !before && !after) [before, cited] = [cited, ""]; // no sentence matched
    const pages = passage.page_end && passage.page_end !== passage.page
      ? `Pages ${passage.page}–${passage.page_end}`
      : `Page ${passage.page}`;
    const parts = [
      h("p", { class: "passage-doc" }, passage.title),
      h("p", { class: "passage-meta" }, pages, verificationPill(citation.verified),
        citation.verified ? addressingPill(citation.addresses) : null),
      citation.verified
        ? null
        : h("p", { class: "passage-warning" },
            "The checker could not match the cited sentence to this passage. Read it before relying on it."),
      citation.verified && citation.addresses === false
        ? h("p", { class: "passage-warning" },
            "This sentence does not address the question"
            + (citation.relevance?.reasons?.length ? `: it ${citation.relevance.reasons.join("; ")}.` : "."))
        : null,
      h(
        "blockquote",
        { class: "passage-text" },
        passage.context_before ? h("span", { class: "passage-context" }, `… ${passage.context_before}`) : null,
        h("span", { class: "passage-chunk" }, before,
          cited ? h("mark", { class: citation.verified ? "mark-verified" : "mark-unverified" }, cited) : null,
          after),
        passage.context_after ? h("span", { class: "passage-context" }, `${passage.context_after} …`) : null,
      ),
    ];
    this.body.replaceChildren(...parts.filter(Boolean));
    const mark = this.body.querySelector("mark");
    if (mark && mark.getBoundingClientRect().top > this.body.getBoundingClientRect().bottom - 48) {
      mark.scrollIntoView({ block: "center" });
    }
  }

  close() {
    if (this.panel.hidden) return;
    this.requestId++;
    this.panel.hidden = true;
    document.body.classList.remove("panel-open");
    if (this.returnFocus?.isConnected) this.returnFocus.focus();
    this.returnFocus = null;
  }
}
