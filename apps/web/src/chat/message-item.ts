import type { AttachmentRef, ReceiptBundle } from '@parley/core';
import { h } from '../dom';
import { formatBytes } from './attachment-view';
import { renderMarkdown } from './markdown';
import type { ToolCallView, ToolCards } from './tool-card';

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
  /** Files sent with the message (`metadata.attachments`). */
  attachments?: readonly AttachmentRef[];
  /** An answer asked for again (Regenerate, `metadata.regenerated`): an alternative to the earlier answer. */
  regenerated?: boolean;
  /** The knowledge documents an agent's answer drew on (`metadata.sources`), by title. */
  usedSources?: readonly UsedSource[];
}

/** A knowledge document an answer drew on. */
export interface UsedSource {
  id: string;
  title: string;
}

/** Where a live chunk came from: the socket or the REST `stream` response. */
export type ChunkSource = 'socket' | 'sse';

/** Shown in a reply's place when the agent answered nothing (an empty or ignored reply). */
export const EMPTY_REPLY = '(empty reply)';

/** One shown message: its element and the parts the list updates. */
export interface Item {
  element: HTMLLIElement;
  sender: HTMLSpanElement;
  time: HTMLTimeElement;
  body: HTMLDivElement;
  files: HTMLUListElement;
  /** "Sources: …" under an agent's answer that drew on knowledge. */
  used: HTMLParagraphElement;
  /** The raw text (markdown source) the body shows: what Copy copies. */
  text: string;
  /** The reply's tool cards, made on its first tool call. */
  tools?: ToolCards;
  chunks: Map<number, string>;
  sources: Set<ChunkSource>;
}

/** What a message's buttons do, given by the list's owner. */
export interface ItemActions {
  /** Fetches an attachment with the page's key and saves it. */
  download: (attachment: AttachmentRef) => Promise<void>;
  /** Fetches a reply's signed receipt (a server with a TEE signs each reply). */
  receipt?: (messageId: string) => Promise<ReceiptBundle>;
}

/** Copies text, with a fallback for a page without the async clipboard (an insecure origin). */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text);
  const area = h('textarea', { value: text, readOnly: true, className: 'visually-hidden' });
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

/** The bubble of a message: sender and time, tool cards (later), the text, attachments, and a Copy button. */
export function createItem(
  id: string,
  role: string,
  senderName: string,
  actions?: ItemActions,
): Item {
  const sender = h('span', { className: 'sender' }, senderName);
  const time = h('time', {});
  const body = h('div', { className: 'text' });
  const files = h('ul', { className: 'files', hidden: true });
  const used = h('p', { className: 'used-sources', hidden: true });
  const element = h(
    'li',
    { className: `message ${role}`, 'data-message-id': id },
    h('div', { className: 'meta' }, sender, ' ', time),
    body,
    files,
    used,
  );
  const item: Item = {
    element,
    sender,
    time,
    body,
    files,
    used,
    text: '',
    chunks: new Map(),
    sources: new Set(),
  };
  const copy = h(
    'button',
    { type: 'button', className: 'copy', 'aria-label': `Copy what ${senderName} wrote` },
    'Copy',
  );
  copy.addEventListener('click', () => {
    copyText(item.text).then(
      () => flash(copy, 'Copied'),
      () => flash(copy, 'Copy failed'),
    );
  });
  const buttons = h('div', { className: 'message-actions' }, copy);
  if (role === 'agent') buttons.append(replyMenu(element, item, actions?.receipt));
  element.append(buttons);
  return item;
}

/**
 * An agent reply's menu: its id (read when opened: a reply keeps the id the server gave it) and a button that
 * copies `parley reply <id>`, the command that shows the reply's steps.
 */
function replyMenu(
  element: HTMLLIElement,
  item: Item,
  fetchReceipt: ItemActions['receipt'],
): HTMLSpanElement {
  const id = h('code', { className: 'reply-id' });
  const copy = h('button', { type: 'button', className: 'copy-command' }, 'Copy parley reply');
  const command = () => `parley reply ${element.dataset.messageId ?? ''}`;
  copy.addEventListener('click', () => {
    copyText(command()).then(
      () => (copy.textContent = 'Copied'),
      () => (copy.textContent = 'Copy failed'),
    );
  });
  const body = h(
    'div',
    { className: 'reply-menu-body', hidden: true },
    h('span', {}, 'Reply id '),
    id,
    copy,
  );
  if (fetchReceipt) body.append(receiptButton(element, item, fetchReceipt));
  const toggle = h(
    'button',
    {
      type: 'button',
      className: 'reply-menu-toggle',
      'aria-label': 'Reply details',
      'aria-expanded': 'false',
    },
    '⋯',
  );
  toggle.addEventListener('click', () => {
    const opening = body.hidden;
    body.hidden = !opening;
    toggle.setAttribute('aria-expanded', String(opening));
    if (opening) {
      id.textContent = element.dataset.messageId ?? '';
      copy.textContent = 'Copy parley reply';
    }
  });
  return h('span', { className: 'reply-menu' }, toggle, body);
}

/**
 * "Receipt": fetches the reply's signed receipt, checks it in the browser (lazily loading `@parley/tee`) and
 * shows what it proves; the button becomes the mark: "✓ Verified" or "✗ Not verified".
 */
function receiptButton(
  element: HTMLLIElement,
  item: Item,
  fetchReceipt: NonNullable<ItemActions['receipt']>,
): HTMLButtonElement {
  const button = h('button', { type: 'button', className: 'receipt-mark' }, 'Receipt');
  // The panel goes under the message, not in the small menu the button is in.
  const holder = h('div', { className: 'receipt-holder' });
  element.append(holder);
  button.addEventListener('click', () => {
    button.disabled = true;
    const messageId = element.dataset.messageId ?? '';
    Promise.all([fetchReceipt(messageId), import('./receipt-view')]).then(
      ([bundle, { checkReceipt, receiptPanel }]) => {
        const checks = checkReceipt(bundle, item.text);
        button.textContent = checks.verified ? '✓ Verified' : '✗ Not verified';
        button.dataset.verified = String(checks.verified);
        holder.replaceChildren(receiptPanel(bundle, checks));
        button.disabled = false;
      },
      (error: unknown) => {
        button.textContent = 'No receipt';
        holder.replaceChildren(
          h(
            'p',
            {},
            `No receipt: ${error instanceof Error ? error.message : String(error)} (a server signs replies only with a TEE).`,
          ),
        );
        button.disabled = false;
      },
    );
  });
  return button;
}

function flash(button: HTMLButtonElement, label: string) {
  button.textContent = label;
  setTimeout(() => (button.textContent = 'Copy'), 1_500);
}

/** Renders an item's text as sanitised markdown; an agent's empty finished reply says so. */
export function renderText(item: Item, text: string, emptyIsReply: boolean): void {
  item.text = text;
  const empty = text.trim() === '' && emptyIsReply && !item.tools;
  item.element.classList.toggle('empty', empty);
  if (empty) {
    item.body.textContent = EMPTY_REPLY;
    return;
  }
  renderMarkdown(item.body, text);
}

/** Shows what an answer drew on: "Sources:" and each document's title, once each. */
export function renderUsedSources(item: Item, sources: readonly UsedSource[]) {
  const titles = [...new Set(sources.map((source) => source.title))];
  item.used.hidden = titles.length === 0;
  item.used.replaceChildren(
    h('span', { className: 'used-label' }, 'Sources: '),
    ...titles.flatMap((title, at) => [
      ...(at > 0 ? [', '] : []),
      h('span', { className: 'used-source' }, title),
    ]),
  );
}

/** Shows a message's attachments: name, type and size, each a button that downloads it. */
export function renderFiles(
  item: Item,
  attachments: readonly AttachmentRef[],
  actions: ItemActions,
) {
  item.files.hidden = attachments.length === 0;
  item.files.replaceChildren(
    ...attachments.map((file) => {
      const button = h(
        'button',
        { type: 'button', className: 'file', title: `Download ${file.name}` },
        `📎 ${file.name}`,
      );
      const status = h(
        'span',
        { className: 'file-meta' },
        ` ${file.contentType}, ${formatBytes(file.size)}`,
      );
      button.addEventListener('click', () => {
        actions.download(file).catch((error: unknown) => {
          status.textContent = ` could not download: ${error instanceof Error ? error.message : String(error)}`;
        });
      });
      return h('li', { 'data-attachment-id': file.id }, button, status);
    }),
  );
}

/** Renders a streaming reply's chunks (in index order) as its text. */
export function renderChunks(item: Item): void {
  const text = [...item.chunks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, part]) => part)
    .join('');
  renderText(item, text, false);
}

/** A stopped reply: no cursor, no running card, and a `stopped` line under what it had produced. */
export function markStopped(item: Item): void {
  item.tools?.abandonRunning();
  item.element.classList.remove('streaming');
  item.element.classList.add('stopped');
  item.element.removeAttribute('aria-busy');
  item.body.after(h('p', { className: 'stopped-label' }, 'stopped'));
}

/**
 * Renders what changed at most once per animation frame: many chunks in one frame are one markdown render.
 */
export class FrameQueue<T> {
  readonly #dirty = new Set<T>();
  readonly #render: (value: T) => void;
  #frame: number | undefined;

  constructor(render: (value: T) => void) {
    this.#render = render;
  }

  /** Renders `value` on the next frame; `atBottom`/`scroll` keep a list that was at its end there. */
  add(value: T, atBottom: () => boolean, scroll: () => void): void {
    this.#dirty.add(value);
    if (this.#frame !== undefined) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = undefined;
      const stick = atBottom();
      for (const dirty of this.#dirty) this.#render(dirty);
      this.#dirty.clear();
      if (stick) scroll();
    });
  }

  /** Forgets `value` (it was rendered by other means). */
  drop(value: T): void {
    this.#dirty.delete(value);
  }

  clear(): void {
    this.#dirty.clear();
  }
}

/** Shows when a message was written (hours and minutes, in the reader's zone). */
export function setTime(item: Item, createdAt: string | undefined): void {
  if (!createdAt) return;
  const date = new Date(createdAt);
  if (Number.isNaN(date.getTime())) return;
  item.time.dateTime = date.toISOString();
  item.time.textContent = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}
