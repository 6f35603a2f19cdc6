// docuchat's web page: sign in, documents, and chat with live tool steps and citations.
import { Api } from "./api.js";
import { Chat } from "./chat.js";
import { ConversationList } from "./conversations.js";
import { DocumentsView } from "./documents.js";
import { notify } from "./dom.js";
import { PassagePanel } from "./passage.js";

// The key lives in sessionStorage: it survives a reload but not the tab, so it is not left
// behind on a shared computer, and one browser profile holds no key once its tabs are closed.
const KEY_STORAGE = "docuchat.apiKey";
const $ = (id) => document.getElementById(id);

const api = new Api(null, {
  onUnauthorized: () => {
    if (!$("app").hidden) signOut("Your API key is no longer accepted. Sign in again.");
  },
});

const passages = new PassagePanel(api, {
  panel: $("passage-panel"),
  body: $("passage-body"),
  heading: $("passage-heading"),
  close: $("passage-close"),
});

const chat = new Chat(api, {
  thread: $("thread"),
  empty: $("chat-empty"),
  form: $("composer"),
  question: $("question"),
  mode: $("mode"),
  detail: $("detail"),
  tools: $("tools"),
  send: $("send"),
  cancel: $("cancel"),
  onConversation: (id) => {
    conversations.setActive(id);
    history.replaceState(null, "", `#/c/${id}`);
    refreshQuietly(conversations);
  },
  onCite: (citation, trigger) => passages.open(citation, trigger),
});

const conversations = new ConversationList(api, {
  list: $("conversation-list"),
  empty: $("conversation-empty"),
  onOpen: (id) => { location.hash = `#/c/${id}`; closeSidebar(); },
  onDeleted: (id) => { if (id === chat.conversationId) location.hash = "#/"; },
});

const documents = new DocumentsView(api, {
  dropzone: $("dropzone"),
  input: $("file-input"),
  uploads: $("uploads"),
  body: $("documents-body"),
  empty: $("documents-empty"),
  count: $("document-count"),
  onChange: (docs) => { $("no-documents-hint").hidden = docs.length > 0; },
  onOpen: (doc, trigger) => passages.openDocument(doc, trigger).catch((error) => notify(error.message)),
});

function refreshQuietly(component) {
  component.refresh().catch((error) => notify(error.message));
}

// -- views and routing: #/ (new chat), #/c/<id> (a conversation), #/documents -----------------

function showView(name) {
  $("chat-view").hidden = name !== "chat";
  $("documents-view").hidden = name !== "documents";
  for (const tab of document.querySelectorAll(".tab")) {
    if (tab.dataset.view === name) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
}

async function route() {
  if (!api.key) return;
  if (location.hash === "#/documents") {
    showView("documents");
    return;
  }
  showView("chat");
  const match = /^#\/c\/(.+)$/.exec(location.hash);
  const id = match ? decodeURIComponent(match[1]) : null;
  conversations.setActive(id);
  if (id === chat.conversationId) return;
  if (!id) {
    chat.startNew();
    return;
  }
  try {
    await chat.open(id);
  } catch (error) {
    notify(`Could not open the conversation: ${error.message}`);
    location.hash = "#/";
  }
}

window.addEventListener("hashchange", route);

for (const button of document.querySelectorAll("[data-view]")) {
  button.addEventListener("click", () => {
    location.hash = button.dataset.view === "documents" ? "#/documents" : chatHash();
  });
}

function chatHash() {
  return chat.conversationId ? `#/c/${chat.conversationId}` : "#/";
}

$("new-conversation").addEventListener("click", () => {
  closeSidebar();
  if (location.hash === "#/" || location.hash === "") chat.startNew();
  else location.hash = "#/";
});

// -- the sidebar on narrow screens ---------------------------------------------------------------

function closeSidebar() {
  document.body.classList.remove("sidebar-open");
  $("menu-toggle").setAttribute("aria-expanded", "false");
}

$("menu-toggle").addEventListener("click", () => {
  const open = document.body.classList.toggle("sidebar-open");
  $("menu-toggle").setAttribute("aria-expanded", String(open));
  if (open) $("new-conversation").focus();
});
$("scrim").addEventListener("click", closeSidebar);
$("sidebar").addEventListener("keydown", (e) => {
  if (e.key === "Escape" && document.body.classList.contains("sidebar-open")) {
    closeSidebar();
    $("menu-toggle").focus();
  }
});

// -- signing in and out --------------------------------------------------------------------------

function showSignIn(message) {
  $("app").hidden = true;
  $("signin").hidden = false;
  const error = $("signin-error");
  error.textContent = message || "";
  error.hidden = !message;
  $("api-key").setAttribute("aria-invalid", String(Boolean(message)));
  $("api-key").focus();
}

async function signIn(key, { remembered = false } = {}) {
  api.key = key;
  let me;
  try {
    me = await api.me();
  } catch (error) {
    api.key = null;
    sessionStorage.removeItem(KEY_STORAGE);
    const message = error.status === 401
      ? (remembered ? "Your saved API key is no longer accepted. Sign in again."
        : "That API key was not accepted. Check it and try again.")
      : `Cannot sign in: ${error.message}`;
    showSignIn(message);
    return;
  }
  sessionStorage.setItem(KEY_STORAGE, key);
  $("user-name").textContent = me.name;
  $("user-initial").textContent = (me.name || "?").charAt(0).toUpperCase();
  $("api-key").value = "";
  await Promise.all([documents.refresh(), conversations.refresh()]).catch((e) => notify(e.message));
  $("signin").hidden = true;
  $("app").hidden = false;
  await route();
  if (!$("chat-view").hidden) $("question").focus();
}

function signOut(message) {
  chat.cancel();
  passages.close();
  api.key = null;
  sessionStorage.removeItem(KEY_STORAGE);
  chat.conversationId = null;
  chat.clear();
  history.replaceState(null, "", "#/");
  showSignIn(message);
}

$("signin-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const key = $("api-key").value.trim();
  if (!key) showSignIn("Enter your API key.");
  else signIn(key);
});

$("sign-out").addEventListener("click", () => signOut());

const saved = sessionStorage.getItem(KEY_STORAGE);
if (saved) signIn(saved, { remembered: true });
else showSignIn();
