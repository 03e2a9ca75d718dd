import { createHmac } from 'node:crypto';
import { ParleyError, reservedUuid, type StoredMessage, uuidFromBytes } from '@parley/core';
import type { Logger } from 'pino';
import type { ReplyFinalPart } from '../reply/parts/reply-part';
import type { IdempotencyClaim } from '../storage/idempotency-store';

/**
 * Where idempotency keeps what must outlive a process: the secret, and for each key its first request, its
 * message and the reply that answers it (see `storage/idempotency-store.ts`).
 */
export interface IdempotencyRecords {
  secret(): Promise<Buffer>;
  claim(
    id: string,
    fingerprint: string,
    messageId: string,
  ): Promise<{ claim: IdempotencyClaim; messageId: string }>;
  claimReply(id: string, replyId: string): Promise<{ replyId: string; mine: boolean }>;
  renewReplies(ids: readonly string[]): Promise<void>;
  endReply(id: string, replyId: string, kept: boolean): Promise<void>;
  /** How long a claimed reply is held without renewal. */
  readonly replyLeaseMs: number;
}

/**
 * How long a retry follows a reply another process produces (polling for it stored) before it gives up with
 * UNAVAILABLE, when that process keeps renewing its claim all along.
 */
export const REPLY_CLAIM_MS = 5 * 60_000;

/** How often a retry that follows another process's reply looks for it stored, or for its process gone. */
const FOLLOW_POLL_MS = 250;

/** A keyed request's claim: the message it posts and the key's row. */
export interface IdempotentClaim {
  /** The message id the request posts (drawn at the key's first use in its window). */
  id: string;
  /** The key's id in storage: a keyed hash of endpoint, channel, client and key. */
  key: string;
  /** Whether an earlier try (any process, any time within the window) claimed the key for the same request. */
  replay: boolean;
}

/** How following another process's reply ended (see {@link Idempotency.followReply}). */
export type FollowedReply =
  | { outcome: 'stored'; message: StoredMessage }
  | { outcome: 'taken-over' }
  | { outcome: 'unavailable' };

/** A request that carries an idempotency key. */
export interface IdempotentRequest {
  /** What the request does (`channel-message`, `submit`): one key means different things on each. */
  endpoint: string;
  /** The client's key, as sent. */
  key: string;
  /** The channel the request writes to: keys are scoped to it. */
  channelId: string;
  /** Who the request speaks as (the entity or author): keys are scoped to it too. */
  clientId: string;
  /** Everything else the request asks: another try with the same key must ask the same, or it is a 409. */
  request: unknown;
}

/** A key used again for something else. */
export const idempotencyConflict = (): ParleyError =>
  new ParleyError('CONFLICT', 'This Idempotency-Key was already used for a different request');

/**
 * Makes a keyed request take effect once within the key's window. The key's id is a keyed hash (HMAC-SHA-256 with
 * the server's secret) of the endpoint, channel, client and key, so the same request finds the same key in every
 * process and after a restart, and nobody without the secret can compute it. The first try claims the key with
 * a keyed hash of what it asked and a message id drawn for it; a later try that asks something else is a
 * CONFLICT. Tries that arrive together in one process share the first one's work (decided synchronously, before
 * anything is awaited), so they start one reply, not several.
 *
 * The reply that answers a key is claimed by one process under a lease it renews while the reply runs
 * ({@link Idempotency.holdReply}): a retry whose reply was left unfinished by a process that died takes it over.
 */
export class Idempotency {
  readonly #records: IdempotencyRecords;
  readonly #logger: Pick<Logger, 'warn'> | undefined;
  #secret: Promise<Buffer> | undefined;
  readonly #inFlight = new Map<string, { request: string; result: Promise<unknown> }>();
  /** The replies this process produces for keys, by key: their leases are renewed together. */
  readonly #held = new Map<string, string>();
  #renewTimer: NodeJS.Timeout | undefined;

  constructor(records: IdempotencyRecords, logger?: Pick<Logger, 'warn'>) {
    this.#records = records;
    this.#logger = logger;
  }

  /**
   * Runs `task` for `request`, unless a try of the same key is already running in this process: then its result,
   * with `joined` true. A try that asks something else than the running one fails with CONFLICT.
   */
  once<T>(
    request: IdempotentRequest,
    task: () => Promise<T>,
  ): { joined: boolean; result: Promise<T> } {
    const scope = scopeOf(request);
    const asked = canonicalJson(request.request);
    const running = this.#inFlight.get(scope);
    if (running) {
      if (running.request !== asked)
        return { joined: true, result: Promise.reject(idempotencyConflict()) };
      return { joined: true, result: running.result as Promise<T> };
    }
    const result = task();
    const entry = { request: asked, result };
    this.#inFlight.set(scope, entry);
    const forget = () => {
      if (this.#inFlight.get(scope) === entry) this.#inFlight.delete(scope);
    };
    result.then(forget, forget);
    return { joined: false, result };
  }

  /**
   * Claims `request`'s key for what it asks: the message id it posts, `replay` when an earlier try (any process,
   * within the window) claimed it with the same request. Fails with CONFLICT when it was claimed for another.
   */
  async claim(request: IdempotentRequest): Promise<IdempotentClaim> {
    const secret = await this.#loadSecret();
    // Version 8: the version the server reserves for its own ids.
    const key = uuidFromBytes(hmac(secret, scopeOf(request)), 8);
    const fingerprint = hmac(secret, canonicalJson(request.request)).toString('base64url');
    const { claim, messageId } = await this.#records.claim(key, fingerprint, reservedUuid());
    if (claim === 'different') throw idempotencyConflict();
    return { id: messageId, key, replay: claim === 'same' };
  }

  /**
   * The reply that answers `key`: `replyId`, `mine`, when this try is the first to claim it; the reply another
   * try claimed and whose process is gone, `mine` too, taken over (under its id); else the one another try
   * claimed and still produces, in this process or another. A reply that is `mine` must be held
   * ({@link holdReply}).
   */
  claimReply(key: string, replyId: string): Promise<{ replyId: string; mine: boolean }> {
    return this.#records.claimReply(key, replyId);
  }

  /**
   * Holds `key`'s reply `replyId` for this process until it ends (`ended`), renewing its lease every third of
   * it. A reply that ends stored (or paused for approval) answers the key for good; one that fails or stores
   * nothing frees it, so that the next try starts another.
   */
  holdReply(key: string, replyId: string, ended: Promise<ReplyFinalPart>): void {
    this.#held.set(key, replyId);
    this.#renewTimer ??= setInterval(() => this.#renew(), this.#records.replyLeaseMs / 3);
    this.#renewTimer.unref();
    void ended.then(async (final) => {
      if (this.#held.get(key) === replyId) this.#held.delete(key);
      if (this.#held.size === 0) {
        clearInterval(this.#renewTimer);
        this.#renewTimer = undefined;
      }
      const kept =
        final.type === 'reply-pause' || (final.type === 'reply-end' && final.message !== null);
      await this.#records
        .endReply(key, replyId, kept)
        .catch((error: unknown) =>
          this.#logger?.warn({ err: error, replyId }, 'the end of a keyed reply was not recorded'),
        );
    });
  }

  /**
   * Follows `key`'s reply `replyId`, which another process claimed: `stored` once it is stored; `taken-over`
   * once that process is gone without finishing it (its lease ran out) and this one has claimed it (the caller
   * must produce and hold it); `unavailable` when it is neither within {@link REPLY_CLAIM_MS}, when the key went
   * to another reply, or when `stopped` says the server stops.
   */
  async followReply(
    key: string,
    replyId: string,
    options: { stored: () => Promise<StoredMessage | undefined>; stopped: () => boolean },
  ): Promise<FollowedReply> {
    const deadline = Date.now() + REPLY_CLAIM_MS;
    while (!options.stopped() && Date.now() < deadline) {
      const stored = await options.stored().catch(() => undefined);
      if (stored) return { outcome: 'stored', message: stored };
      const claimed = await this.#records.claimReply(key, replyId).catch(() => undefined);
      if (claimed?.mine && claimed.replyId === replyId) return { outcome: 'taken-over' };
      if (claimed && claimed.replyId !== replyId) return { outcome: 'unavailable' };
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS).unref());
    }
    return { outcome: 'unavailable' };
  }

  #renew(): void {
    this.#records
      .renewReplies([...this.#held.keys()])
      .catch((error: unknown) =>
        this.#logger?.warn({ err: error }, 'the leases of keyed replies were not renewed'),
      );
  }

  #loadSecret(): Promise<Buffer> {
    this.#secret ??= this.#records.secret().catch((error: unknown) => {
      // A database that was down when first asked is asked again next time.
      this.#secret = undefined;
      throw error;
    });
    return this.#secret;
  }
}

const scopeOf = (request: IdempotentRequest) =>
  JSON.stringify([
    'parley-idempotency',
    request.endpoint,
    request.channelId,
    request.clientId,
    request.key,
  ]);

const hmac = (secret: Buffer, text: string) => createHmac('sha256', secret).update(text).digest();

/** JSON with object keys sorted, so that `{a, b}` and `{b, a}` are the same request; undefined members dropped. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
