import { h } from '../dom';
import type { ApprovalView, DecideApproval } from './approval-panel';
import { ToolCards, type ToolCallView, type ToolResultView } from './tool-card';

/** Who wrote a message, as the page styles it. */
export type MessageRole = 'own' | 'agent' | 'other';

/** A message as the list shows it. */
export interface ChatMessage {
  id: string;
  senderId: string;
  senderName: string;
  text: string;
  role: MessageRole;
  createdAt?: string;
  /** The user message an agent reply answers. */
  inReplyTo?: string | null;
  /** An agent reply's tool calls with their outcomes (a stored reply's `raw_message.toolCalls`, a `sync` answer). */
  toolCalls?: readonly ToolCallView[];
}

/** Where a live chunk came from: the socket or the REST `stream` response. */
export type ChunkSource = 'socket' | 'sse';

interface Item {
  element: HTMLLIElement;
  sender: HTMLSpanElement;
  time: HTMLTimeElement;
  body: HTMLParagraphElement;
  /** The reply's tool cards, made on its first tool call. */
  tools?: ToolCards;
  chunks: Map<number, string>;
  sources: Set<ChunkSource>;
}

const replyKey = (userMessageId: string) => `reply-to:${userMessageId}`;

/**
 * The conversation as an accessible log. Messages are keyed by id, so the same message arriving twice (the
 * sender's own broadcast, a reply delivered by both the socket and a REST stream) is shown once, and live
 * chunks are placed by their index, whatever order or path they arrive by.
 */
export class MessageList {
  readonly #list: HTMLOListElement;
  readonly #items = new Map<string, Item>();
  readonly #decide: DecideApproval;

  /** `decide` sends a person's decision on a call that waits for approval. */
  constructor(list: HTMLOListElement, decide: DecideApproval) {
    this.#list = list;
    this.#decide = decide;
  }

  /** Removes everything. */
  clear(): void {
    this.#items.clear();
    this.#list.replaceChildren();
  }

  /** Whether a message with this id is shown. */
  has(id: string): boolean {
    return this.#items.has(id);
  }

  /** Shows older messages above the current ones, oldest first. */
  prepend(messages: readonly ChatMessage[]): void {
    const first = this.#list.firstChild;
    for (const message of messages) {
      if (this.#items.has(message.id)) continue;
      this.#list.insertBefore(this.#create(message).element, first);
    }
  }

  /** Shows a complete message, or completes one already shown (a streamed reply, a pending send). */
  upsert(message: ChatMessage): void {
    const stick = this.#atBottom();
    const key = message.inReplyTo ? replyKey(message.inReplyTo) : undefined;
    let item = this.#items.get(message.id);
    if (!item && key && this.#items.has(key)) {
      // A `sync` reply shown before its broadcast: the broadcast gives it its real id.
      item = this.#items.get(key)!;
      this.#items.delete(key);
      this.#items.set(message.id, item);
      item.element.dataset.messageId = message.id;
    }
    if (!item) {
      item = this.#create(message);
      this.#list.append(item.element);
    }
    if (message.inReplyTo) item.element.dataset.inReplyTo = message.inReplyTo;
    item.sender.textContent = message.senderName;
    item.body.textContent = message.text;
    this.#setTime(item, message.createdAt);
    for (const call of message.toolCalls ?? []) this.#tools(item).call(call);
    item.tools?.abandonRunning();
    item.element.removeAttribute('aria-busy');
    item.element.classList.remove('pending', 'streaming');
    if (stick) this.#scrollToBottom();
  }

  /** A sync reply that has no id yet: keyed by the message it answers until its broadcast arrives. */
  upsertReplyTo(userMessageId: string, message: Omit<ChatMessage, 'id'>): void {
    const existing = [...this.#items.values()].some(
      (item) => item.element.dataset.inReplyTo === userMessageId,
    );
    if (!existing) this.upsert({ ...message, id: replyKey(userMessageId), inReplyTo: undefined });
  }

  /** Marks a shown message as sent but not yet confirmed. */
  markPending(id: string): void {
    this.#items.get(id)?.element.classList.add('pending');
  }

  /** Adds a live chunk of a reply; creates the reply's entry on its first chunk. */
  chunk(
    messageId: string,
    index: number,
    chunk: string,
    source: ChunkSource,
    sender: string,
  ): void {
    const stick = this.#atBottom();
    const item = this.#live(messageId, sender);
    item.sources.add(source);
    item.element.dataset.sources = [...item.sources].sort().join(' ');
    if (!item.element.classList.contains('streaming') || item.chunks.has(index)) return;
    item.chunks.set(index, chunk);
    item.body.textContent = [...item.chunks.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, text]) => text)
      .join('');
    if (stick) this.#scrollToBottom();
  }

  /** A running reply called a tool: its card, above the reply's text (the reply's entry is made if need be). */
  toolCall(messageId: string, sender: string, call: ToolCallView): void {
    const stick = this.#atBottom();
    this.#tools(this.#live(messageId, sender)).call(call);
    if (stick) this.#scrollToBottom();
  }

  /**
   * A running reply waits for a person to approve a call: Approve / Deny on its card. The reply stays open (it
   * goes on, under the same id, once decided).
   */
  approvalRequest(messageId: string, sender: string, request: ApprovalView): void {
    const stick = this.#atBottom();
    const item = this.#live(messageId, sender);
    this.#tools(item).approval(request, this.#decide);
    // It waits for a person, not busy: screen readers announce the question now, not when the reply ends.
    item.element.removeAttribute('aria-busy');
    if (stick) this.#scrollToBottom();
  }

  /** A tool call ended: its card shows the output or the error. */
  toolResult(messageId: string, sender: string, result: ToolResultView): void {
    const stick = this.#atBottom();
    this.#tools(this.#live(messageId, sender)).result(result);
    if (stick) this.#scrollToBottom();
  }

  /** Ends a reply's live state (its final text, if any, comes by `upsert`). */
  finish(messageId: string): void {
    const item = this.#items.get(messageId);
    item?.tools?.abandonRunning();
    item?.element.classList.remove('streaming');
    item?.element.removeAttribute('aria-busy');
  }

  /** Shows an error under a message; false when that message is not shown. */
  fail(messageId: string, text: string): boolean {
    const item = this.#items.get(messageId);
    if (!item) return false;
    item.tools?.abandonRunning();
    item.element.classList.remove('pending', 'streaming');
    item.element.removeAttribute('aria-busy');
    item.element.append(h('p', { className: 'message-error', role: 'alert' }, text));
    return true;
  }

  /** A line about the room itself (joins, leaves). */
  notice(text: string): void {
    const stick = this.#atBottom();
    this.#list.append(h('li', { className: 'notice' }, text));
    if (stick) this.#scrollToBottom();
  }

  #create(message: ChatMessage): Item {
    const sender = h('span', { className: 'sender' }, message.senderName);
    const time = h('time', {});
    const body = h('p', { className: 'text' }, message.text);
    const element = h(
      'li',
      {
        className: `message ${message.role}`,
        'data-message-id': message.id,
        'data-in-reply-to': message.inReplyTo ?? undefined,
      },
      h('div', { className: 'meta' }, sender, ' ', time),
      body,
    );
    const item: Item = { element, sender, time, body, chunks: new Map(), sources: new Set() };
    this.#setTime(item, message.createdAt);
    if (message.toolCalls?.length) {
      const tools = this.#tools(item);
      for (const call of message.toolCalls) tools.call(call);
      tools.abandonRunning();
    }
    this.#items.set(message.id, item);
    return item;
  }

  /** The entry of a reply that is still being produced, created (streaming) on its first chunk or tool call. */
  #live(messageId: string, sender: string): Item {
    let item = this.#items.get(messageId);
    if (!item) {
      item = this.#create({
        id: messageId,
        senderId: '',
        senderName: sender,
        text: '',
        role: 'agent',
      });
      item.element.classList.add('streaming');
      item.element.setAttribute('aria-busy', 'true');
      this.#list.append(item.element);
    }
    return item;
  }

  /** A reply's tool cards, placed between its sender line and its text on first use. */
  #tools(item: Item): ToolCards {
    if (!item.tools) {
      item.tools = new ToolCards();
      item.body.before(item.tools.element);
    }
    return item.tools;
  }

  #setTime(item: Item, createdAt: string | undefined) {
    if (!createdAt) return;
    const date = new Date(createdAt);
    if (Number.isNaN(date.getTime())) return;
    item.time.dateTime = date.toISOString();
    item.time.textContent = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  }

  #atBottom(): boolean {
    const scroller = this.#list.parentElement;
    if (!scroller) return true;
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 48;
  }

  #scrollToBottom() {
    const scroller = this.#list.parentElement;
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
  }
}
