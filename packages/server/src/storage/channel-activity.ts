import { LRUCache } from 'lru-cache';
import { DEFAULTS } from '../defaults';

/** A channel's id and the time of its newest message, as `channels.last_message_at` should hold it. */
export type ChannelActivityRow = readonly [channelId: string, at: Date];

/**
 * Keeps `channels.last_message_at` off the write path: a channel's activity is written with a batch of its
 * messages at most once per `intervalMs`; a newer time that arrives sooner is held here and written, for every
 * held channel at once, in one statement after the interval, outside any batch (`settle` writes them now).
 *
 * So a busy channel costs one activity write a second instead of one per batch. Another process reads a
 * channel's activity at most one interval late; this process reads it exact (its readers `settle` first).
 */
export class ChannelActivity {
  readonly #intervalMs: number;
  readonly #write: (rows: readonly ChannelActivityRow[]) => Promise<void>;
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;
  /** When each channel's activity was last written (or handed to a batch), by `now`. Bounded. */
  readonly #written: LRUCache<string, number>;
  /** The newest time of the channels whose write waits for the interval. */
  readonly #held = new Map<string, Date>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(options: {
    write: (rows: readonly ChannelActivityRow[]) => Promise<void>;
    onError: (error: unknown) => void;
    intervalMs?: number;
    maxChannels?: number;
    now?: () => number;
  }) {
    this.#write = options.write;
    this.#onError = options.onError;
    this.#intervalMs = options.intervalMs ?? DEFAULTS.internals.channelActivityIntervalMs;
    this.#now = options.now ?? (() => performance.now());
    this.#written = new LRUCache({ max: options.maxChannels ?? 50_000 });
  }

  /**
   * Of a batch's channels (each with its newest message's time), those whose activity the batch writes now; the
   * others are held and written after the interval.
   */
  due(latest: ReadonlyMap<string, Date>): ChannelActivityRow[] {
    const now = this.#now();
    const due: ChannelActivityRow[] = [];
    for (const [channelId, at] of latest) {
      const held = this.#held.get(channelId);
      const newest = held && held > at ? held : at;
      const last = this.#written.get(channelId);
      if (last === undefined || now - last >= this.#intervalMs) {
        this.#written.set(channelId, now);
        this.#held.delete(channelId);
        due.push([channelId, newest]);
      } else {
        this.#held.set(channelId, newest);
      }
    }
    if (this.#held.size > 0 && !this.#timer) {
      this.#timer = setTimeout(() => void this.settle(), this.#intervalMs);
      this.#timer.unref();
    }
    return due;
  }

  /** A channel's activity was just written with its creation: the next batch holds its own. */
  written(channelId: string): void {
    this.#written.set(channelId, this.#now());
  }

  /** Drops what is held for a channel that was deleted or cleared. */
  forget(channelId: string): void {
    this.#held.delete(channelId);
    this.#written.delete(channelId);
  }

  /** Writes every held activity now; resolves once written (errors go to `onError`, never reject). */
  settle(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#held.size === 0) return this.#writing;
    const rows = [...this.#held];
    this.#held.clear();
    const now = this.#now();
    for (const [channelId] of rows) this.#written.set(channelId, now);
    this.#writing = this.#writing
      .then(() => this.#write(rows))
      .catch((error: unknown) => {
        this.#onError(error);
      });
    return this.#writing;
  }
}
