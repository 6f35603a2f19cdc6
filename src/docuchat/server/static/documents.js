// Documents: upload with progress (bytes sent, then ingestion), and the list with delete.
import { confirmAction } from "./dialog.js";
import { formatBytes, formatWhen, h, icon, ICONS, notify, plural } from "./dom.js";

const POLL_MS = 400;

const MEDIA_NAMES = {
  "application/pdf": "PDF",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word",
  "text/markdown": "Markdown",
  "text/html": "HTML",
  "text/plain": "Text",
};

function mediaName(mediaType) {
  return MEDIA_NAMES[mediaType] || mediaType;
}

const STATUS_WORDS = { added: "added", unchanged: "already there", replaced: "updated" };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One upload's row: a progress bar through both phases, then what happened to each file. */
class UploadRow {
  constructor(files) {
    const names = files.map((f) => f.name).join(", ");
    const size = formatBytes(files.reduce((sum, f) => sum + f.size, 0));
    this.state = h("span", { class: "upload-state" }, "Starting…");
    this.bar = h("progress", { max: 100, value: 0, "aria-label": `Progress of ${names}` });
    this.results = h("ul", { class: "upload-results" });
    this.problem = h("p", { class: "upload-problem", role: "alert" });
    this.el = h(
      "li",
      { class: "upload", "data-phase": "uploading" },
      h("div", { class: "upload-head" },
        icon(ICONS.file),
        h("span", { class: "upload-names", title: names }, files.length === 1 ? names : `${files.length} files: ${names}`),
        h("span", { class: "upload-size" }, size),
        this.state),
      this.bar,
      this.problem,
      this.results,
    );
  }

  phase(name, text, percent) {
    this.el.dataset.phase = name;
    this.state.textContent = text;
    if (percent === null) this.bar.removeAttribute("value");
    else this.bar.value = percent;
  }

  finish(job) {
    if (job.status === "failed") {
      this.fail(job.error || "The ingestion stopped.");
    } else {
      const skipped = job.skipped.length;
      const summary = `${plural(job.documents.length, "document")} ready`;
      this.phase("done", skipped ? `${summary}, ${skipped} skipped` : summary, 100);
    }
    this.results.replaceChildren(
      ...job.documents.map((d) =>
        h("li", { class: "result-ok" }, icon(ICONS.check),
          h("span", {}, h("strong", {}, d.title), ` ${STATUS_WORDS[d.status] || d.status} · `,
            `${plural(d.pages, "page")} · ${plural(d.chunks, "chunk")}`)),
      ),
      ...job.skipped.map((s) =>
        h("li", { class: "result-skipped" }, icon(ICONS.warn),
          h("span", {}, h("strong", {}, s.file), ` skipped: ${s.message || s.reason}`)),
      ),
    );
  }

  fail(message) {
    this.phase("failed", "Failed", 100);
    this.problem.textContent = message;
  }
}

export class DocumentsView {
  constructor(api, { dropzone, input, uploads, body, empty, count, onChange, onOpen }) {
    this.api = api;
    this.onOpen = onOpen;
    this.uploads = uploads;
    this.body = body;
    this.empty = empty;
    this.count = count;
    this.onChange = onChange;
    this.documents = [];
    input.addEventListener("change", () => {
      if (input.files.length) this.upload([...input.files]);
      input.value = "";
    });
    dropzone.addEventListener("dragover", (e) => {
      e.preventDefault();
      dropzone.classList.add("is-dragging");
    });
    dropzone.addEventListener("dragleave", () => dropzone.classList.remove("is-dragging"));
    dropzone.addEventListener("drop", (e) => {
      e.preventDefault();
      dropzone.classList.remove("is-dragging");
      if (e.dataTransfer.files.length) this.upload([...e.dataTransfer.files]);
    });
    // A file dropped anywhere else must not make the browser leave the page to show it.
    for (const type of ["dragover", "drop"]) window.addEventListener(type, (e) => e.preventDefault());
  }

  async refresh() {
    const { documents } = await this.api.documents();
    this.documents = documents;
    this.count.textContent = documents.length ? String(documents.length) : "";
    this.empty.hidden = documents.length > 0;
    this.body.replaceChildren(...documents.map((d) => this.row(d)));
    this.onChange(documents);
  }

  row(doc) {
    return h(
      "tr",
      { "data-doc-id": doc.id },
      h("td", {}, h("button", {
        type: "button", class: "doc-title link-btn", title: `Open ${doc.source || doc.title}`,
        "aria-label": `Open ${doc.title}`,
        onclick: (e) => this.onOpen(doc, e.currentTarget),
      }, icon(ICONS.file), h("span", {}, doc.title))),
      h("td", {}, h("span", { class: "type-tag" }, mediaName(doc.media_type))),
      h("td", { class: "num" }, String(doc.page_count)),
      h("td", { class: "num" }, String(doc.chunk_count)),
      h("td", { class: "muted" }, formatWhen(doc.added_at)),
      h("td", { class: "actions" },
        h("button", { type: "button", class: "icon-btn danger", "aria-label": `Delete ${doc.title}`,
          title: "Delete", onclick: () => this.remove(doc) }, icon(ICONS.trash))),
    );
  }

  async remove(doc) {
    const ok = await confirmAction({
      title: "Delete this document?",
      text: `“${doc.title}” and its passages will be removed. Answers that cited it keep their text.`,
    });
    if (!ok) return;
    try {
      await this.api.deleteDocument(doc.id);
    } catch (error) {
      notify(`Could not delete “${doc.title}”: ${error.message}`);
    }
    await this.refresh();
  }

  async upload(files) {
    const row = new UploadRow(files);
    this.uploads.prepend(row.el);
    try {
      const accepted = await this.api.upload(files, (loaded, total) => {
        const percent = Math.round((loaded / total) * 100);
        row.phase("uploading", `Uploading… ${percent}%`, percent);
      });
      row.phase("processing", "Reading and indexing…", null);
      const job = await this.waitFor(accepted.job_id, row);
      // Files refused on arrival (type, size) are reported with the job's own skipped files.
      row.finish({ ...job, skipped: [...(accepted.rejected || []), ...job.skipped] });
    } catch (error) {
      row.fail(error.message);
    }
    await this.refresh();
  }

  async waitFor(jobId, row) {
    for (;;) {
      const job = await this.api.job(jobId);
      if (job.status === "done" || job.status === "failed") return job;
      if (job.total) {
        row.phase("processing", `Reading and indexing… ${job.done} of ${job.total}`,
          Math.round((job.done / job.total) * 100));
      }
      await sleep(POLL_MS);
    }
  }
}
