// The sidebar's list of conversations.
import { confirmAction } from "./dialog.js";
import { formatWhen, h, icon, ICONS, notify, plural } from "./dom.js";

export class ConversationList {
  constructor(api, { list, empty, onOpen, onDeleted }) {
    this.api = api;
    this.list = list;
    this.empty = empty;
    this.onOpen = onOpen;
    this.onDeleted = onDeleted;
    this.activeId = null;
    this.conversations = [];
  }

  async refresh() {
    const { conversations } = await this.api.conversations();
    this.conversations = conversations;
    this.render();
  }

  setActive(id) {
    this.activeId = id;
    this.render();
  }

  render() {
    this.empty.hidden = this.conversations.length > 0;
    this.list.replaceChildren(...this.conversations.map((c) => this.item(c)));
  }

  item(conversation) {
    const active = conversation.id === this.activeId;
    const title = conversation.title || "Untitled conversation";
    return h(
      "li",
      { class: `conversation${active ? " is-active" : ""}`, "data-conversation-id": conversation.id },
      h(
        "button",
        { type: "button", class: "conversation-open", "aria-current": active ? "true" : false,
          onclick: () => this.onOpen(conversation.id) },
        h("span", { class: "conversation-title" }, title),
        h("span", { class: "conversation-meta" },
          `${conversation.turns ? plural(conversation.turns, "question") : "In progress"} · `
          + formatWhen(conversation.updated_at)),
      ),
      h("button", { type: "button", class: "icon-btn conversation-delete", title: "Delete",
        "aria-label": `Delete conversation “${title}”`, onclick: () => this.remove(conversation, title) },
        icon(ICONS.trash)),
    );
  }

  async remove(conversation, title) {
    const ok = await confirmAction({
      title: "Delete this conversation?",
      text: `“${title}” and its answers will be removed.`,
    });
    if (!ok) return;
    try {
      await this.api.deleteConversation(conversation.id);
    } catch (error) {
      notify(`Could not delete the conversation: ${error.message}`);
    }
    await this.refresh();
    this.onDeleted(conversation.id);
  }
}
