/** One client's bucket: tokens left and when they were counted. */
interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * Token buckets by key (a client): `burst` requests at once, refilled at `perSecond`. At most `maxKeys`
 * buckets are kept; the least recently used is forgotten first (a forgotten client starts full again), so
 * memory stays bounded whatever the number of clients. Time comes from `now`, so tests need no sleeps.
 */
export class KeyedTokenBucket {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    private readonly maxKeys = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    if (!(burst >= 1) || !(perSecond > 0)) {
      throw new RangeError('burst must be at least 1 and perSecond above 0');
    }
  }

  /** Takes a token for `key`: 0 when allowed, else the milliseconds until the next token. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.burst, updated: now };
    bucket.tokens = Math.min(
      this.burst,
      bucket.tokens + ((now - bucket.updated) / 1000) * this.perSecond,
    );
    bucket.updated = now;
    // Re-inserted so that Map order is least recently used first.
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > this.maxKeys) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - bucket.tokens) / this.perSecond) * 1000);
  }

  /** How many clients are tracked. */
  get size(): number {
    return this.#buckets.size;
  }
}
