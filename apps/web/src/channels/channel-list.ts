import { describeError } from '../describe-error';
import { h } from '../dom';
import type { RecentChannel } from '../recent-channels';
import {
  deleteChannel,
  isServerChannel,
  listChannels,
  renameChannel,
  type ServerChannel,
} from './channels-api';
import { displayName, NEW_CHANNEL_NAME } from './channel-names';
import { isUnread, markSeen, readSeen, writeSeen } from './unread';

/** How often the list is refreshed while the tab is visible (unread marks of channels the page is not in). */
const REFRESH_MS = 20_000;

/** What the list needs from the app. */
export interface ChannelListHost {
  /** Opens a channel. */
  open: (channelId: string) => void;
  /** The channel shown now. */
  current: () => string;
  /** The name of an agent id, for a channel's second line. */
  agentName: (agentId: string) => string;
  /** The channel shown now was deleted (here or elsewhere). */
  onDeleted: (channelId: string) => void;
}

/**
 * The sidebar's channels: the server's list by name, newest activity first, with rename, delete (confirmed) and
 * a mark on channels with messages newer than this browser saw. Kept live by the socket's `channelCreated`,
 * `channelUpdated` and `channelDeleted`, and refreshed now and then. When the list cannot be had (an older
 * server, a refusal) it shows the channels this browser used (`recent`), as before.
 */
export class ChannelList {
  readonly #element: HTMLUListElement;
  readonly #note = h('p', { className: 'hint' });
  readonly #error = h('p', { className: 'error', role: 'alert' });
  readonly #host: ChannelListHost;
  #channels: ServerChannel[] | undefined;
  #recent: RecentChannel[] = [];
  #seen = readSeen();
  /** This browser never saw a channel: what exists now is not news. */
  #firstVisit = Object.keys(this.#seen).length === 0;
  #renaming: string | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(element: HTMLUListElement, host: ChannelListHost) {
    this.#element = element;
    this.#host = host;
    element.before(this.#note, this.#error);
  }

  /** Whether the server's list is shown (false: the browser's recent channels). */
  get fromServer(): boolean {
    return this.#channels !== undefined;
  }

  /** A channel the server listed. */
  find(channelId: string): ServerChannel | undefined {
    return this.#channels?.find((channel) => channel.id === channelId);
  }

  /** Loads the server's list (falls back to the recent channels), and refreshes it every {@link REFRESH_MS}. */
  async load(): Promise<void> {
    try {
      const channels = await listChannels();
      if (this.#firstVisit) {
        // Unread counts from the first time this browser sees the channels, not from their beginning.
        for (const channel of channels) this.#baseline(channel);
        this.#firstVisit = false;
        writeSeen(this.#seen);
      }
      this.#channels = channels;
    } catch {
      this.#channels = undefined;
    }
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => {
        if (document.visibilityState === 'visible') void this.load();
      }, REFRESH_MS);
      // Back to the tab: fresh marks at once.
      document.addEventListener('visibilitychange', () => {
        if (document.visibilityState === 'visible') void this.load();
      });
    }
    this.render();
  }

  /** The browser's recent channels (the fallback list). */
  setRecent(recent: RecentChannel[]): void {
    this.#recent = recent;
    if (!this.fromServer) this.render();
  }

  /** A channel was created or changed (a socket event, or this page's own call). */
  upsert(value: unknown): void {
    if (!this.#channels || !isServerChannel(value)) return;
    if (!this.find(value.id)) {
      // A channel made while this page is open: news from its next message on.
      this.#baseline(value);
      writeSeen(this.#seen);
    }
    const others = this.#channels.filter((channel) => channel.id !== value.id);
    this.#channels = [value, ...others].sort((a, b) => activity(b) - activity(a));
    this.render();
  }

  #baseline(channel: ServerChannel) {
    if (channel.id in this.#seen) return;
    this.#seen = markSeen(this.#seen, channel.id, channel.lastMessageAt ?? channel.createdAt);
  }

  /** A channel was deleted. */
  remove(channelId: string): void {
    if (this.#channels) {
      this.#channels = this.#channels.filter((channel) => channel.id !== channelId);
      this.render();
    }
    if (channelId === this.#host.current()) this.#host.onDeleted(channelId);
  }

  /** The channel shown has a message at `at`: seen. */
  seen(channelId: string, at = new Date().toISOString()): void {
    this.#seen = markSeen(this.#seen, channelId, at);
    writeSeen(this.#seen);
    const channel = this.find(channelId);
    if (channel && (!channel.lastMessageAt || channel.lastMessageAt < at)) {
      channel.lastMessageAt = at;
    }
    this.render();
  }

  render(): void {
    const current = this.#host.current();
    const shown = this.find(current);
    if (shown?.lastMessageAt) this.#seen = markSeen(this.#seen, current, shown.lastMessageAt);
    this.#note.textContent = this.fromServer
      ? ''
      : 'The server did not list its channels: these are the ones this browser used.';
    const rows = this.#channels
      ? this.#channels.map((channel) =>
          this.#row(channel.id, displayName(channel), channel, current),
        )
      : this.#recent.map((entry) =>
          this.#row(entry.id, entry.title ?? NEW_CHANNEL_NAME, undefined, current),
        );
    this.#element.replaceChildren(...rows);
  }

  #row(id: string, name: string, channel: ServerChannel | undefined, current: string) {
    if (this.#renaming === id && channel) return this.#renameRow(channel);
    const unread = id !== current && isUnread(this.#seen, id, channel?.lastMessageAt);
    const agent = channel?.agentId ? this.#host.agentName(channel.agentId) : undefined;
    const open = h(
      'button',
      {
        type: 'button',
        className: 'channel-open',
        'aria-current': id === current ? 'true' : undefined,
        onclick: () => this.#host.open(id),
      },
      h('span', { className: 'channel-name' }, name),
      agent ? h('span', { className: 'channel-agent' }, ` · ${agent}`) : undefined,
      unread ? h('span', { className: 'unread', 'aria-label': ', new messages' }, ' ●') : undefined,
    );
    const row = h(
      'li',
      { 'data-channel-id': id, 'data-unread': unread ? 'true' : undefined },
      open,
    );
    if (channel) {
      row.append(
        h(
          'button',
          {
            type: 'button',
            className: 'channel-action',
            'aria-label': `Rename ${name}`,
            title: 'Rename',
            onclick: () => {
              this.#renaming = id;
              this.render();
              this.#element.querySelector<HTMLInputElement>('.rename input')?.select();
            },
          },
          '✎',
        ),
        h(
          'button',
          {
            type: 'button',
            className: 'channel-action',
            'aria-label': `Delete ${name}`,
            title: 'Delete',
            onclick: () => void this.#delete(channel),
          },
          '×',
        ),
      );
    }
    return row;
  }

  #renameRow(channel: ServerChannel) {
    const input = h('input', {
      value: channel.name,
      maxLength: 256,
      required: true,
      'aria-label': `New name for ${channel.name}`,
    });
    const done = (focusRow = true) => {
      this.#renaming = undefined;
      this.render();
      if (focusRow) {
        this.#element
          .querySelector<HTMLButtonElement>(`li[data-channel-id="${channel.id}"] .channel-open`)
          ?.focus();
      }
    };
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        done();
      }
    });
    const form = h(
      'form',
      { className: 'rename' },
      input,
      h('button', { type: 'submit' }, 'Save'),
      h('button', { type: 'button', onclick: () => done() }, 'Cancel'),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const name = input.value.trim();
      if (!name) return;
      renameChannel(channel.id, name).then(
        (renamed) => {
          this.#renaming = undefined;
          this.upsert(renamed);
          done();
        },
        (error: unknown) => (this.#error.textContent = `Not renamed: ${describeError(error)}`),
      );
    });
    return h('li', { 'data-channel-id': channel.id }, form);
  }

  async #delete(channel: ServerChannel) {
    this.#error.textContent = '';
    if (!confirm(`Delete the channel “${channel.name}” and all its messages?`)) return;
    try {
      await deleteChannel(channel.id);
      this.remove(channel.id);
    } catch (error) {
      this.#error.textContent = `Not deleted: ${describeError(error)}`;
    }
  }
}

function activity(channel: ServerChannel): number {
  return Date.parse(channel.lastMessageAt ?? channel.createdAt) || 0;
}
