import type { Logger } from 'pino';

/**
 * Work done after a reply, off its path, within bounds: at most `maxConcurrent` jobs at once, one pending per
 * key (a second of the same key while one waits is dropped: the waiting one reads the newer state), at most
 * `maxQueued` pending (beyond, new work is dropped and counted). A job's failure is logged, never thrown.
 */
export class BoundedWork {
  readonly #queued = new Map<string, () => Promise<unknown>>();
  readonly #logger: Logger;
  readonly #maxConcurrent: number;
  readonly #maxQueued: number;
  readonly #what: string;
  #active = 0;
  #idle: (() => void)[] = [];
  /** Jobs dropped because the queue was full. */
  dropped = 0;

  constructor(options: { maxConcurrent: number; maxQueued: number; logger: Logger; what: string }) {
    this.#maxConcurrent = Math.max(1, options.maxConcurrent);
    this.#maxQueued = options.maxQueued;
    this.#logger = options.logger;
    this.#what = options.what;
  }

  /** Queues `run` under `key` (or keeps the one already waiting under it). */
  add(key: string, run: () => Promise<unknown>): void {
    if (this.#queued.has(key)) return;
    if (this.#queued.size >= this.#maxQueued) {
      this.dropped += 1;
      this.#logger.warn({ key }, `${this.#what}: the queue is full, skipped`);
      return;
    }
    this.#queued.set(key, run);
    this.#drain();
  }

  /** Resolves once nothing runs or waits (tests, shutdown). */
  idle(): Promise<void> {
    if (this.#active === 0 && this.#queued.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #drain(): void {
    while (this.#active < this.#maxConcurrent && this.#queued.size > 0) {
      const [key, run] = this.#queued.entries().next().value!;
      this.#queued.delete(key);
      this.#active += 1;
      void Promise.resolve()
        .then(run)
        .catch((error: unknown) => this.#logger.warn({ err: error, key }, `${this.#what} failed`))
        .finally(() => {
          this.#active -= 1;
          this.#drain();
          if (this.#active === 0 && this.#queued.size === 0) {
            for (const resolve of this.#idle.splice(0)) resolve();
          }
        });
    }
  }
}
