// An answer as a person reads it: light Markdown, citation chips, and the list of sources.
import { h, icon, ICONS } from "./dom.js";

const INLINE = /(\*\*[^*\n]+\*\*|`[^`\n]+`|\[\d+(?:\s*,\s*\d+)*\])/g;
const MARKER = /^\[(\d+(?:\s*,\s*\d+)*)\]$/;
const BULLET = /^\s*[-*•]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const HEADING = /^#{1,6}\s+(.*)$/;

const ADDRESSING = {
  true: " It addresses the question.",
  false: " It does not address the question.",
};

/** Where a citation points, as every view writes it: "page 2", "pages 2-3", "slide 4", ... */
export function whereLabel(citation) {
  return citation.label || `page ${citation.page}`;
}

/** How a citation describes itself to a screen reader and in a tooltip. */
export function citationLabel(citation) {
  const where = `${citation.title}, ${whereLabel(citation)}`;
  const verified = citation.verified
    ? `Source ${citation.n}: ${where}. Verified: the passage supports the sentence.`
    : `Source ${citation.n}: ${where}. Not verified: the passage may not support the sentence.`;
  // Whether an unverified quote addresses the question says little: it is only the nearest.
  return verified + ((citation.verified && ADDRESSING[citation.addresses]) || "");
}

function citationChip(citation, onCite) {
  return h(
    "button",
    {
      type: "button",
      class: `cite ${citation.verified ? "cite-verified" : "cite-unverified"}`,
      "data-n": citation.n,
      title: citationLabel(citation),
      "aria-label": citationLabel(citation),
      onclick: (e) => onCite(citation, e.currentTarget),
    },
    String(citation.n),
  );
}

/**
 * The checks of the sentence each marker stands in, met in the answer's order: a marker's
 * chips show how its passage supports that sentence, not another sentence citing it. Each
 * sentence's citations are used up by its markers, then the next sentence's are due.
 * Without claims (an answer saved before they existed) each passage's own verdict serves.
 */
function claimFinder(claims, byNumber) {
  const pending = claims.map((claim) => new Map(claim.citations.map((c) => [c.n, c])));
  return (numbers) => {
    while (pending.length && !pending[0].size) pending.shift();
    const checks = pending.find((left) => numbers.every((n) => left.has(n)));
    if (!checks) return byNumber;
    const found = new Map(numbers.map((n) => [n, checks.get(n)]));
    for (const n of numbers) checks.delete(n);
    return found;
  };
}

function inline(text, byNumber, findClaim, onCite) {
  const nodes = [];
  for (const part of text.split(INLINE)) {
    if (!part) continue;
    const marker = MARKER.exec(part);
    if (marker) {
      const numbers = marker[1].split(",").map((n) => Number(n.trim()));
      if (numbers.every((n) => byNumber.has(n))) {
        const checks = findClaim(numbers);
        nodes.push(h("span", { class: "cites" }, numbers.map((n) => citationChip(checks.get(n), onCite))));
        continue;
      }
    }
    if (part.startsWith("**") && part.endsWith("**") && part.length > 4) {
      nodes.push(h("strong", {}, part.slice(2, -2)));
    } else if (part.startsWith("`") && part.endsWith("`") && part.length > 2) {
      nodes.push(h("code", {}, part.slice(1, -1)));
    } else {
      nodes.push(part);
    }
  }
  return nodes;
}

/** Blocks of a Markdown-ish answer: paragraphs, bullet and numbered lists, headings. */
function blocks(text, byNumber, findClaim, onCite) {
  const out = [];
  for (const block of text.trim().split(/\n{2,}/)) {
    let list = null;
    let paragraph = null;
    for (const line of block.split("\n")) {
      const bullet = BULLET.exec(line);
      const numbered = bullet ? null : NUMBERED.exec(line);
      const heading = HEADING.exec(line);
      if (bullet || numbered) {
        const tag = bullet ? "ul" : "ol";
        if (!list || list.tagName.toLowerCase() !== tag) out.push((list = h(tag)));
        list.append(h("li", {}, inline((bullet || numbered)[1], byNumber, findClaim, onCite)));
        paragraph = null;
      } else if (heading) {
        out.push(h("p", { class: "answer-heading" }, inline(heading[1], byNumber, findClaim, onCite)));
        list = paragraph = null;
      } else if (line.trim()) {
        if (!paragraph) out.push((paragraph = h("p")));
        else paragraph.append(h("br"));
        paragraph.append(...inline(line, byNumber, findClaim, onCite));
        list = null;
      }
    }
  }
  return out;
}

/** The answer's content: text with [N] markers turned into chips, each with its sentence's
 * check (``claims``) of the given citations. */
export function renderAnswer(text, citations, claims, onCite) {
  const byNumber = new Map(citations.map((c) => [c.n, c]));
  return blocks(text, byNumber, claimFinder(claims, byNumber), onCite);
}

export function verificationPill(verified) {
  return verified
    ? h("span", { class: "pill pill-ok" }, icon(ICONS.check), "Verified")
    : h("span", { class: "pill pill-warn" }, icon(ICONS.warn), "Not verified");
}

/** Whether the cited sentence addresses the question (nothing when it was not judged):
 * a sentence can be verified, quoted right, and still be about something else. */
export function addressingPill(addresses) {
  if (addresses === true) return h("span", { class: "pill pill-ok" }, icon(ICONS.check), "Answers the question");
  if (addresses === false) return h("span", { class: "pill pill-warn" }, icon(ICONS.warn), "Off the question");
  return null;
}

/** The numbered sources under an answer; each opens its passage. */
export function renderSources(citations, onCite) {
  if (!citations.length) return null;
  return h(
    "section",
    { class: "sources", "aria-label": "Sources" },
    h("h3", { class: "sources-heading" }, "Sources"),
    h(
      "ol",
      { class: "source-list" },
      citations.map((c) =>
        h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: `source ${c.verified ? "source-verified" : "source-unverified"}`,
              "aria-label": citationLabel(c),
              onclick: (e) => onCite(c, e.currentTarget),
            },
            h("span", { class: `cite ${c.verified ? "cite-verified" : "cite-unverified"}` }, String(c.n)),
            h(
              "span",
              { class: "source-main" },
              h("span", { class: "source-title" }, c.title),
              h("span", { class: "source-meta" }, whereLabel(c), verificationPill(c.verified),
                c.verified ? addressingPill(c.addresses) : null),
              c.quote ? h("span", { class: "source-quote" }, `“${c.quote}”`) : null,
            ),
          ),
        ),
      ),
    ),
  );
}
