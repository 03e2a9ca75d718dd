/**
 * A token bucket: `capacity` events at once, refilled at `perSecond`. Time comes from `now` so tests need no
 * sleeps.
 */
export class TokenBucket {
  #tokens: number;
  #updated: number;

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#tokens = capacity;
    this.#updated = now();
  }

  /** Takes one token; false when the bucket is empty. */
  take(): boolean {
    const now = this.now();
    this.#tokens = Math.min(
      this.capacity,
      this.#tokens + ((now - this.#updated) / 1000) * this.perSecond,
    );
    this.#updated = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
