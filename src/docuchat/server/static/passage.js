// The side panel that shows a cited passage with the cited span highlighted.
import { addressingPill, verificationPill, whereLabel } from "./answer.js";
import { h } from "./dom.js";

const PAGE_WIDTH = 1600; // pixels asked of the server: sharp when zoomed in the panel

/**
 * A page's picture with boxes drawn over it (fractions of the page, origin top-left), in a
 * view that shows it zoomed (the quote readable) or whole; the button switches.
 */
function pageFigure(url, page, boxes, className) {
  const view = h(
    "div",
    { class: boxes.length ? "page-view zoomed" : "page-view" },
    h(
      "figure",
      { class: "page-figure", "data-page": page },
      h("img", { src: url, alt: `Page ${page} of the original`, class: "page-image" }),
      ...boxes.map(([x0, y0, x1, y1]) =>
        h("span", {
          class: `page-box ${className}`,
          style: {
            left: `${x0 * 100}%`,
            top: `${y0 * 100}%`,
            width: `${(x1 - x0) * 100}%`,
            height: `${(y1 - y0) * 100}%`,
          },
        })),
    ),
  );
  const toggle = h("button", {
    type: "button",
    class: "link-btn page-zoom",
    onclick: () => {
      view.classList.toggle("zoomed");
      toggle.textContent = view.classList.contains("zoomed") ? "Whole page" : "Zoom in";
      view.querySelector(".page-box")?.scrollIntoView({ block: "center", inline: "start" });
    },
  }, boxes.length ? "Whole page" : "Zoom in");
  return h("div", { class: "page-original" },
    h("p", { class: "page-caption" }, `Page ${page} of the original`, toggle), view);
}

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
      const [passage, figures] = await Promise.all([
        this.api.passage(citation.chunk_id),
        this.originals(citation, id),
      ]);
      if (id === this.requestId) this.show(citation, passage, figures);
    } catch (error) {
      if (id === this.requestId) {
        this.body.replaceChildren(h("p", { class: "form-error", role: "alert" }, error.message));
      }
    }
  }

  /** The original pages the quote stands on, its boxes drawn over them (PDFs, scans). */
  async originals(citation, id) {
    const regions = (citation.locations || []).filter((l) => l.page && l.boxes && l.boxes.length);
    const figures = [];
    for (const region of regions) {
      const url = await this.api.pageImage(citation.doc_id, region.page, PAGE_WIDTH);
      if (id !== this.requestId) return [];
      const className = citation.verified ? "box-verified" : "box-unverified";
      figures.push(pageFigure(url, region.page, region.boxes, className));
    }
    return figures;
  }

  /** Open a document itself: its pages (PDFs and pictures), else the original file. */
  async openDocument(doc, trigger) {
    const id = ++this.requestId;
    this.returnFocus = trigger || null;
    if (!doc.page_count || !["application/pdf", "image/png", "image/jpeg", "image/tiff"].includes(doc.media_type)) {
      window.open(await this.api.documentFile(doc.id), "_blank", "noopener");
      return;
    }
    this.panel.hidden = false;
    document.body.classList.add("panel-open");
    this.heading.textContent = doc.title;
    this.heading.focus();
    const figures = [];
    for (let page = 1; page <= Math.min(doc.page_count, 50); page++) {
      const url = await this.api.pageImage(doc.id, page, PAGE_WIDTH);
      if (id !== this.requestId) return;
      figures.push(pageFigure(url, page, [], ""));
      this.body.replaceChildren(h("p", { class: "passage-doc" }, doc.title), ...figures);
    }
  }

  show(citation, passage, figures = []) {
    let [before, cited, after] = splitAtSpan(passage, citation.span || [0, 0], citation.quote);
    if (!citation.verified && !before && !after) [before, cited] = [cited, ""]; // no sentence matched
    const parts = [
      h("p", { class: "passage-doc" }, passage.title),
      h("p", { class: "passage-meta" }, whereLabel(citation), verificationPill(citation.verified),
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
      ...figures,
    ];
    this.body.replaceChildren(...parts.filter(Boolean));
    const box = this.body.querySelector(".page-box");
    const image = box && box.parentElement.querySelector("img");
    if (box) {
      // Once the page is laid out, bring the quote's first line to the middle of the panel.
      const reveal = () => box.scrollIntoView({ block: "center", inline: "start" });
      if (image.complete) reveal();
      else image.addEventListener("load", reveal, { once: true });
      return;
    }
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
