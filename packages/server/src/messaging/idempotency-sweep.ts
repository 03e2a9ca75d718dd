import type { Logger } from 'pino';
import { PollLoop } from '../scheduling/poll-loop';

/** Where expired keys are removed from (`IdempotencyStore`). */
export interface ExpiredKeys {
  /** Removes up to `limit` keys past their window whose reply is not running; how many. */
  sweep(limit: number): Promise<number>;
}

/** Options of {@link IdempotencySweep}. */
export interface IdempotencySweepOptions {
  /** The pause between two removals. */
  sweepMs: number;
  /** The most keys one removal takes. */
  sweepBatch: number;
  logger: Logger;
}

/**
 * Removes `Idempotency-Key` records past their window, in every process: at most `sweepBatch` each `sweepMs`, in
 * one statement whose rows another process removing at the same time skips (see `IdempotencyStore.sweep`), so
 * that N processes share the work instead of doing it N times, and none waits on another or holds a lock for
 * long. At the defaults (1000 keys each 10 s) one process removes 8.6 million keys a day.
 */
export class IdempotencySweep {
  readonly #keys: ExpiredKeys;
  readonly #options: IdempotencySweepOptions;
  readonly #loop: PollLoop;

  constructor(keys: ExpiredKeys, options: IdempotencySweepOptions) {
    this.#keys = keys;
    this.#options = options;
    this.#loop = new PollLoop({
      poll: () => this.sweepOnce(),
      intervalMs: options.sweepMs,
      onError: (error) =>
        options.logger.warn({ err: error }, 'expired idempotency keys were not removed'),
    });
  }

  /** Starts removing expired keys: now, then every `sweepMs`. */
  start(): void {
    this.#loop.start();
  }

  /** Stops, after the removal under way. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One removal of at most `sweepBatch` keys; how many. */
  async sweepOnce(): Promise<number> {
    const { sweepBatch, logger } = this.#options;
    const removed = await this.#keys.sweep(sweepBatch);
    if (removed > 0)
      logger.debug({ removed, limit: sweepBatch }, 'expired idempotency keys removed');
    return removed;
  }
}
