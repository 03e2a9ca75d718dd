import type { StoredMessage } from '@parley/core';
import { LRUCache } from 'lru-cache';

/**
 * The last messages of the busiest channels, oldest first, so that building a prompt costs no query. Only
 * valid while this process writes every message of a channel (the embedded database): the store feeds it each
 * message it writes. Bounded in channels (least recently used forgotten first) and in messages per channel.
 */
export class RecentMessagesCache {
  readonly #channels: LRUCache<string, StoredMessage[]>;
  /** Messages written while a channel's history was being loaded, merged in when it arrives. */
  readonly #pending = new Map<string, StoredMessage[]>();

  constructor(
    readonly capacity: number,
    maxChannels = 1000,
  ) {
    this.#channels = new LRUCache({ max: maxChannels });
  }

  /** The last `limit` messages of a channel, oldest first, loading them once on a miss. */
  async recent(
    channelId: string,
    limit: number,
    load: () => Promise<StoredMessage[]>,
  ): Promise<StoredMessage[]> {
    let messages = this.#channels.get(channelId);
    if (!messages) {
      const pending: StoredMessage[] = [];
      this.#pending.set(channelId, pending);
      let forgotten = false;
      try {
        const loaded = await load();
        const known = new Set(loaded.map((message) => message.id));
        messages = [...loaded, ...pending.filter((message) => !known.has(message.id))].slice(
          -this.capacity,
        );
      } finally {
        forgotten = this.#pending.get(channelId) !== pending;
        if (!forgotten) this.#pending.delete(channelId);
      }
      if (!forgotten) this.#channels.set(channelId, messages);
    }
    return messages.slice(-limit);
  }

  /** A message of a channel's window held here, if it is one (a look, not a use: nothing is loaded). */
  find(channelId: string, messageId: string): StoredMessage | undefined {
    return this.#channels.peek(channelId)?.findLast((message) => message.id === messageId);
  }

  /**
   * Forgets a channel's messages (some were deleted): the next read loads them again. A load under way when it
   * is called is dropped too, so that it cannot bring deleted messages back.
   */
  forget(channelId: string): void {
    this.#channels.delete(channelId);
    this.#pending.delete(channelId);
  }

  /** Records a message just written. */
  add(message: StoredMessage): void {
    const channelId = message.channel_id;
    this.#pending.get(channelId)?.push(message);
    // Peeked: a write is not a use, so it does not keep a channel nobody reads.
    const messages = this.#channels.peek(channelId);
    if (!messages) return;
    messages.push(message);
    if (messages.length > this.capacity) messages.shift();
  }
}
