import { LRUCache } from 'lru-cache';

/**
 * A token bucket: `burst` events at once, refilled at `perSecond`. Time comes from `now`, so tests need no
 * sleeps. The one bucket of the server: REST and plugin-route rate limits, socket handshakes and socket events.
 */
export class TokenBucket {
  #tokens: number;
  #updated: number;

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(burst >= 1) || !(perSecond > 0)) {
      throw new RangeError('burst must be at least 1 and perSecond above 0');
    }
    this.#tokens = burst;
    this.#updated = now();
  }

  /** Takes one token: 0 when allowed, else the milliseconds until the next token. */
  takeOrWait(): number {
    const now = this.now();
    this.#tokens = Math.min(
      this.burst,
      this.#tokens + (Math.max(0, now - this.#updated) / 1000) * this.perSecond,
    );
    this.#updated = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) / this.perSecond) * 1000);
  }

  /** Takes one token; false when the bucket is empty. */
  take(): boolean {
    return this.takeOrWait() === 0;
  }
}

/**
 * Token buckets by key (a client): `burst` at once, refilled at `perSecond`. At most `maxKeys` buckets are kept
 * (lru-cache); the least recently used is forgotten first (a forgotten client starts full again), so memory
 * stays bounded whatever the number of clients.
 */
export class KeyedTokenBucket {
  readonly #buckets: LRUCache<string, TokenBucket>;

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    maxKeys = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    if (!(burst >= 1) || !(perSecond > 0)) {
      throw new RangeError('burst must be at least 1 and perSecond above 0');
    }
    this.#buckets = new LRUCache({ max: maxKeys });
  }

  /** Takes a token for `key`: 0 when allowed, else the milliseconds until the next token. */
  take(key: string): number {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(this.burst, this.perSecond, this.now);
      this.#buckets.set(key, bucket);
    }
    return bucket.takeOrWait();
  }

  /** How many clients are tracked. */
  get size(): number {
    return this.#buckets.size;
  }
}
