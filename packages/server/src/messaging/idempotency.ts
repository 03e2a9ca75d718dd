import { createHmac } from 'node:crypto';
import { ParleyError, uuidFromBytes } from '@parley/core';
import type { IdempotencyClaim } from '../storage/idempotency-store';

/** Where idempotency keeps what must outlive a process: the secret and each key's first request. */
export interface IdempotencyRecords {
  secret(): Promise<Buffer>;
  claim(id: string, fingerprint: string): Promise<IdempotencyClaim>;
  claimReply(id: string, replyId: string, staleBefore: Date): Promise<string>;
}

/**
 * How long a reply claimed by one process is left to it: another process's retry waits for that reply (stored)
 * this long, and may start its own after, when the first process has died without answering.
 */
export const REPLY_CLAIM_MS = 5 * 60_000;

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
 * Makes a keyed request take effect once. Its message id is a keyed hash (HMAC-SHA-256 with the server's secret)
 * of the endpoint, channel, client and key, so the same request gets the same id in every process and after a
 * restart, and nobody without the secret can compute it. The first try claims the id with a keyed hash of what it
 * asked; a later try that asks something else is a CONFLICT. Tries that arrive together in one process share the
 * first one's work (decided synchronously, before anything is awaited), so they start one reply, not several.
 */
export class Idempotency {
  readonly #records: IdempotencyRecords;
  #secret: Promise<Buffer> | undefined;
  readonly #inFlight = new Map<string, { request: string; result: Promise<unknown> }>();

  constructor(records: IdempotencyRecords) {
    this.#records = records;
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
   * The id of `request`'s message, claimed for what it asks: `replay` when an earlier try (any process, any
   * time) claimed it with the same request. Fails with CONFLICT when it was claimed for another.
   */
  async claim(request: IdempotentRequest): Promise<{ id: string; replay: boolean }> {
    const secret = await this.#loadSecret();
    // Version 8: the version the server reserves for its own ids.
    const id = uuidFromBytes(hmac(secret, scopeOf(request)), 8);
    const fingerprint = hmac(secret, canonicalJson(request.request)).toString('base64url');
    const claim = await this.#records.claim(id, fingerprint);
    if (claim === 'different') throw idempotencyConflict();
    return { id, replay: claim === 'same' };
  }

  /**
   * The reply that answers the request whose message is `messageId`: `replyId` when this try is the first to
   * claim it (or the earlier claim is older than {@link REPLY_CLAIM_MS}), else the id another try claimed, in
   * this process or another.
   */
  claimReply(messageId: string, replyId: string): Promise<string> {
    return this.#records.claimReply(messageId, replyId, new Date(Date.now() - REPLY_CLAIM_MS));
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
