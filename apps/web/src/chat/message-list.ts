import { h } from '../dom';
import { Announcer } from './announcer';
import type { ApprovalView, DecideApproval } from './approval-panel';
import {
  type ChatMessage,
  type ChunkSource,
  createItem,
  FrameQueue,
  type Item,
  type ItemActions,
  markStopped,
  renderChunks,
  renderFiles,
  renderUsedSources,
  renderText,
  setTime,
} from './message-item';
import { ToolCards, type ToolCallView, type ToolResultView } from './tool-card';

export type { ChatMessage, ChunkSource, MessageRole } from './message-item';

const replyKey = (userMessageId: string) => `reply-to:${userMessageId}`;

/**
 * The conversation as an accessible log. Messages are keyed by id, so the same message arriving twice (the
 * sender's own broadcast, a reply delivered by both the socket and a REST stream) is shown once, and live
 * chunks are placed by their index, whatever order or path they arrive by. Text is rendered as sanitised
 * markdown; a streaming reply is re-rendered at most once per animation frame. Screen readers hear each reply
 * once, when it ends, through `announcer` (the list itself is not a live region: it would read every chunk).
 */
export class MessageList {
  readonly #list: HTMLOListElement;
  readonly #items = new Map<string, Item>();
  readonly #decide: DecideApproval;
  readonly #actions: ItemActions;
  readonly #announcer: Announcer;
  /** Replies whose text changed since the last frame. */
  readonly #frames = new FrameQueue<Item>((item) => renderChunks(item));
  /** While Regenerate runs: the answer it replaces and the message it asks again. */
  #regenerating: { answer: HTMLLIElement; asked: string } | undefined;

  /** `decide` sends a person's decision on a call that waits for approval. */
  constructor(
    list: HTMLOListElement,
    decide: DecideApproval,
    actions: ItemActions = { download: () => Promise.reject(new Error('no downloads here')) },
    announcer?: HTMLElement,
  ) {
    this.#list = list;
    this.#decide = decide;
    this.#actions = actions;
    this.#announcer = new Announcer(announcer);
  }

  /** Removes everything. */
  clear(): void {
    this.#regenerating = undefined;
    this.#items.clear();
    this.#frames.clear();
    this.#announcer.reset();
    this.#list.replaceChildren();
  }

  /** The id of the last message this browser sent (what Regenerate asks the agent to answer again). */
  lastOwnId(): string | undefined {
    return [...this.#list.querySelectorAll<HTMLLIElement>('li.message.own')].at(-1)?.dataset
      .messageId;
  }

  /** The text of the last message this browser sent. */
  lastOwnText(): string | undefined {
    const own = [...this.#list.querySelectorAll<HTMLLIElement>('li.message.own')].at(-1);
    const id = own?.dataset.messageId;
    return id ? this.#items.get(id)?.text : undefined;
  }

  /**
   * Regenerate is about to ask the last message again: its new answer takes the last answer's place (the old one
   * stays reachable through the answer's `‹ 1/2 ›`), and the message asked again is not shown a second time.
   * False when there is no answer to replace.
   */
  beginRegenerate(asked: string): boolean {
    const answer = [...this.#list.querySelectorAll<HTMLLIElement>('li.message.agent')]
      .filter((element) => !element.hidden)
      .at(-1);
    this.#regenerating = answer ? { answer, asked } : undefined;
    return answer !== undefined;
  }

  /** Regenerate ended without a new answer (the send failed): later messages are shown as they come. */
  endRegenerate(): void {
    this.#regenerating = undefined;
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
      const { element } = this.#create(message);
      this.#list.insertBefore(element, first);
      if (message.regenerated) this.#asAlternative(element);
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
      if (this.#announcer.has(key)) this.#announcer.alias(message.id);
    }
    if (!item) {
      item = this.#create(message);
      this.#place(item.element, message.role, message.text);
    }
    if (message.inReplyTo) item.element.dataset.inReplyTo = message.inReplyTo;
    if (message.regenerated) this.#asAlternative(item.element);
    item.sender.textContent = message.senderName;
    setTime(item, message.createdAt);
    for (const call of message.toolCalls ?? []) this.#tools(item).call(call);
    this.#frames.drop(item);
    renderText(item, message.text, message.role === 'agent');
    if (message.attachments) renderFiles(item, message.attachments, this.#actions);
    if (message.usedSources) renderUsedSources(item, message.usedSources);
    item.tools?.abandonRunning();
    item.element.removeAttribute('aria-busy');
    item.element.classList.remove('pending', 'streaming');
    if (message.role !== 'own') this.#announcer.message(message.id, message.senderName, item.text);
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

  /** Marks a shown message as sent (the server took it), whatever happens to its reply. */
  markSent(id: string): void {
    const item = this.#items.get(id);
    if (!item) return;
    item.element.classList.remove('pending');
    item.element.querySelector('.message-error')?.remove();
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
    this.#frames.add(
      item,
      () => this.#atBottom(),
      () => this.#scrollToBottom(),
    );
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
    item.element.removeAttribute('aria-busy');
    // It waits for a person: screen readers hear the question now, not when the reply ends.
    this.#announcer.say(
      `${sender} asks to approve ${request.toolName}: Approve or Deny, on its card.`,
    );
    if (stick) this.#scrollToBottom();
  }

  /** A tool call ended: its card shows the output or the error. */
  toolResult(messageId: string, sender: string, result: ToolResultView): void {
    const stick = this.#atBottom();
    this.#tools(this.#live(messageId, sender)).result(result);
    if (stick) this.#scrollToBottom();
  }

  /**
   * Ends a reply's live state (its final text, if any, comes by `upsert`). With `sender`, a reply that never
   * showed (the agent answered nothing) is shown as an empty reply, not silence.
   */
  finish(messageId: string, sender?: string): void {
    let item = this.#items.get(messageId);
    if (!item && sender === undefined) return;
    item ??= this.#live(messageId, sender!);
    if (!item.element.classList.contains('streaming')) return;
    item.tools?.abandonRunning();
    item.element.classList.remove('streaming');
    item.element.removeAttribute('aria-busy');
    this.#frames.drop(item);
    renderChunks(item);
    if (!item.text.trim()) renderText(item, '', true);
    this.#announcer.message(messageId, item.sender.textContent ?? '', item.text);
  }

  /** Every reply still streaming was stopped (a `CANCELLED` that names the message answered, not the reply). */
  stopStreaming(): void {
    for (const [id, item] of this.#items) {
      if (item.element.classList.contains('streaming')) this.stopped(id);
    }
  }

  /** A reply stopped by a person: no cursor, and it says `stopped` (what it had produced stays). */
  stopped(messageId: string): void {
    const item = this.#items.get(messageId);
    if (!item || item.element.querySelector('.stopped-label')) return;
    if (item.element.classList.contains('streaming')) {
      this.#frames.drop(item);
      renderChunks(item);
    }
    markStopped(item);
    this.#announcer.say(`${item.sender.textContent ?? 'The'} reply stopped.`);
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

  /** A message's bubble; a `live` reply (still streaming) is not yet an empty reply. */
  #create(message: ChatMessage, live = false): Item {
    const item = createItem(message.id, message.role, message.senderName, this.#actions);
    if (message.inReplyTo) item.element.dataset.inReplyTo = message.inReplyTo;
    if (message.toolCalls?.length) {
      const tools = this.#tools(item);
      for (const call of message.toolCalls) tools.call(call);
      tools.abandonRunning();
    }
    renderText(item, message.text, message.role === 'agent' && !live);
    if (message.attachments) renderFiles(item, message.attachments, this.#actions);
    if (message.usedSources) renderUsedSources(item, message.usedSources);
    setTime(item, message.createdAt);
    this.#items.set(message.id, item);
    return item;
  }

  /** The entry of a reply that is still being produced, created (streaming) on its first chunk or tool call. */
  #live(messageId: string, sender: string): Item {
    let item = this.#items.get(messageId);
    if (!item) {
      item = this.#create(
        { id: messageId, senderId: '', senderName: sender, text: '', role: 'agent' },
        true,
      );
      item.element.classList.add('streaming');
      item.element.setAttribute('aria-busy', 'true');
      this.#place(item.element, 'agent', '');
    }
    return item;
  }

  /**
   * Adds a new message's element at the end, or, while Regenerate runs, the message asked again hidden (it is
   * the same words) and the new answer as the next version of the answer it replaces, in its place.
   */
  #place(element: HTMLLIElement, role: string, text: string) {
    const regenerating = this.#regenerating;
    if (regenerating && role === 'own' && text === regenerating.asked) {
      element.hidden = true;
      element.classList.add('asked-again');
      this.#list.append(element);
      return;
    }
    if (regenerating && role === 'agent') {
      this.#regenerating = undefined;
      const versions = regenerating.answer.dataset.versionOf
        ? [
            ...this.#list.querySelectorAll<HTMLLIElement>(
              `li[data-version-of="${regenerating.answer.dataset.versionOf}"]`,
            ),
          ]
        : [regenerating.answer];
      const group = regenerating.answer.dataset.versionOf ?? `v${this.#list.children.length}`;
      versions.at(-1)!.after(element);
      versions.push(element);
      for (const version of versions) version.dataset.versionOf = group;
      this.#showVersion(versions, versions.length - 1);
      return;
    }
    this.#list.append(element);
  }

  /**
   * A regenerated answer (from the history, or live from another client) joins the answers to the same message
   * as their newest alternative, shown in the place of the earlier one (`‹ n/m ›` reaches the others). One this
   * page asked for is placed so already.
   */
  #asAlternative(element: HTMLLIElement) {
    const to = element.dataset.inReplyTo;
    if (!to || element.dataset.versionOf) return;
    const earlier = [
      ...this.#list.querySelectorAll<HTMLLIElement>(
        `li.message.agent[data-in-reply-to="${CSS.escape(to)}"]`,
      ),
    ].filter((answer) => answer !== element);
    const replaced = earlier.at(-1);
    if (!replaced) return;
    const group = replaced.dataset.versionOf ?? `v-${to}`;
    const versions = replaced.dataset.versionOf
      ? [...this.#list.querySelectorAll<HTMLLIElement>(`li[data-version-of="${group}"]`)]
      : [replaced];
    versions.at(-1)!.after(element);
    versions.push(element);
    for (const version of versions) version.dataset.versionOf = group;
    this.#showVersion(versions, versions.length - 1);
  }

  /** Shows answer `index` of `versions` (the others hidden), each with `‹ n/m ›` to go to the others. */
  #showVersion(versions: HTMLLIElement[], index: number) {
    versions.forEach((version, at) => {
      version.hidden = at !== index;
      version.querySelector('.versions')?.remove();
      const previous = h(
        'button',
        { type: 'button', 'aria-label': 'Previous answer', disabled: at === 0 },
        '‹',
      );
      const next = h(
        'button',
        { type: 'button', 'aria-label': 'Next answer', disabled: at === versions.length - 1 },
        '›',
      );
      previous.addEventListener('click', () => this.#showVersion(versions, at - 1));
      next.addEventListener('click', () => this.#showVersion(versions, at + 1));
      const label = h('span', { className: 'version-label' }, `${at + 1}/${versions.length}`);
      version
        .querySelector('.meta')
        ?.append(
          h(
            'span',
            { className: 'versions', role: 'group', 'aria-label': 'Answers' },
            previous,
            label,
            next,
          ),
        );
    });
  }

  /** A reply's tool cards, placed between its sender line and its text on first use. */
  #tools(item: Item): ToolCards {
    if (!item.tools) {
      item.tools = new ToolCards();
      item.body.before(item.tools.element);
    }
    return item.tools;
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
