// The docuchat HTTP API, as the page uses it. Every call carries the API key.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

/** The "detail" of an error body ({"detail": "..."} or FastAPI's validation list). */
function detailOf(body, fallback) {
  const detail = body && body.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail) && detail.length) {
    return detail.map((d) => d.msg || JSON.stringify(d)).join("; ");
  }
  return fallback;
}

async function errorFrom(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: fall back to the status text
  }
  return new ApiError(response.status, detailOf(body, `${response.status} ${response.statusText}`));
}

export class Api {
  constructor(key, { onUnauthorized } = {}) {
    this.key = key;
    this.onUnauthorized = onUnauthorized || (() => {});
  }

  headers(extra = {}) {
    return { Authorization: `Bearer ${this.key}`, ...extra };
  }

  async request(method, path, body) {
    const init = { method, headers: this.headers() };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    if (!response.ok) throw await this.fail(response);
    return response.status === 204 ? null : response.json();
  }

  async fail(response) {
    const error = await errorFrom(response);
    if (response.status === 401) this.onUnauthorized(error);
    return error;
  }

  me() { return this.request("GET", "/api/me"); }
  documents() { return this.request("GET", "/api/documents"); }
  deleteDocument(id) { return this.request("DELETE", `/api/documents/${encodeURIComponent(id)}`); }
  job(id) { return this.request("GET", `/api/jobs/${encodeURIComponent(id)}`); }
  passage(chunkId) { return this.request("GET", `/api/passages/${encodeURIComponent(chunkId)}`); }

  /** A blob: URL of an authenticated GET (an <img> or a new tab cannot send the key). */
  async blobUrl(path) {
    const response = await fetch(path, { headers: this.headers() });
    if (!response.ok) throw await this.fail(response);
    return URL.createObjectURL(await response.blob());
  }

  pageImage(docId, page, width) {
    return this.blobUrl(`/api/documents/${encodeURIComponent(docId)}/pages/${page}?width=${width}`);
  }

  documentFile(docId) { return this.blobUrl(`/api/documents/${encodeURIComponent(docId)}/file`); }
  conversations() { return this.request("GET", "/api/conversations"); }
  conversation(id) { return this.request("GET", `/api/conversations/${encodeURIComponent(id)}`); }
  deleteConversation(id) {
    return this.request("DELETE", `/api/conversations/${encodeURIComponent(id)}`);
  }
  cancelRun(runId) { return this.request("POST", `/api/runs/${encodeURIComponent(runId)}/cancel`); }

  /**
   * Upload files as multipart field "files". XMLHttpRequest, because fetch reports no upload
   * progress. onProgress(loaded, total) while sending; resolves with the 202 job body.
   */
  upload(files, onProgress) {
    const form = new FormData();
    for (const file of files) form.append("files", file, file.name);
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", "/api/documents");
      xhr.setRequestHeader("Authorization", `Bearer ${this.key}`);
      xhr.responseType = "json";
      xhr.upload.addEventListener("progress", (e) => {
        if (e.lengthComputable) onProgress(e.loaded, e.total);
      });
      xhr.addEventListener("load", () => {
        if (xhr.status >= 200 && xhr.status < 300) return resolve(xhr.response);
        const error = new ApiError(xhr.status, detailOf(xhr.response, `Upload failed (${xhr.status})`));
        if (xhr.status === 401) this.onUnauthorized(error);
        return reject(error);
      });
      xhr.addEventListener("error", () => reject(new ApiError(0, "The upload failed: network error")));
      xhr.addEventListener("abort", () => reject(new ApiError(0, "The upload was cancelled")));
      xhr.send(form);
    });
  }

  /**
   * POST /api/ask with stream=true and call onEvent(event) for each server-sent event until
   * "[DONE]". fetch + ReadableStream rather than EventSource, which cannot send the key.
   */
  /** research: {detail, tools}; an empty choice leaves the server's setting. */
  async ask({ question, conversationId, mode, research = {} }, onEvent, signal) {
    const chosen = Object.fromEntries(Object.entries(research).filter(([, value]) => value));
    const body = { question, conversation_id: conversationId, mode, stream: true, research: chosen };
    const response = await fetch("/api/ask", {
      method: "POST",
      headers: this.headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
      body: JSON.stringify(body),
      signal,
    });
    if (!response.ok) throw await this.fail(response);
    for await (const data of sseData(response.body)) {
      if (data === "[DONE]") return;
      onEvent(JSON.parse(data));
    }
  }
}

/** The data payloads of a text/event-stream body, one per event. */
export async function* sseData(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      // Normalise line ends; a trailing "\r" waits, as its "\n" may come in the next chunk.
      buffer += value;
      const held = buffer.endsWith("\r");
      buffer = (held ? buffer.slice(0, -1) : buffer).replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
          .join("\n");
        if (data) yield data;
      }
      if (held) buffer += "\r";
    }
  } finally {
    reader.releaseLock();
  }
}
