import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type * as Undici from 'undici';
import type { Agent, buildConnector } from 'undici';
import type { Tracer } from '@opentelemetry/api';
import type { TargetPolicy } from './target-policy';
import { tracedAttempt } from './webhook-tracing';
import type { ClaimedDelivery, SendResult } from './delivery-types';

/** How much of a receiver's answer is kept with the attempt. */
export const RESPONSE_BODY_LIMIT = 2048;

let undici: typeof Undici | undefined;

/**
 * undici, required by the first attempt rather than imported at start-up: a server with no webhook subscription
 * never sends one, and undici is megabytes of resident memory (see docs/decisions.md).
 */
function loadUndici(): typeof Undici {
  undici ??= createRequire(import.meta.url)('undici') as typeof Undici;
  return undici;
}

export type { SendResult } from './delivery-types';

/**
 * Sends deliveries as the Standard Webhooks specification describes: a JSON body, `webhook-id` (the same on
 * every attempt of a delivery), `webhook-timestamp` (this attempt's, in seconds) and `webhook-signature`
 * (`v1,<base64 HMAC-SHA256>`), signed with the `standardwebhooks` library so receivers verify with it unchanged.
 * Connections go only to addresses the target policy allows (checked in the connection's own lookup, address
 * literals included, at every connection), redirects are not followed, every attempt has one deadline for
 * everything (connecting, the headers and the body: a receiver that trickles its answer is cut off there too),
 * and only the first bytes of an answer are read.
 */
export class WebhookSender {
  readonly #policy: TargetPolicy;
  /** Made by the first attempt. */
  #agent: Agent | undefined;
  readonly #timeoutMs: number;
  readonly #tracer: Tracer | undefined;
  readonly #receiptIdOf: ((messageId: string) => string | undefined) | undefined;

  /**
   * @param options.timeoutMs the deadline of one attempt, from its start to the last byte read. The dispatcher
   *   bounds how many attempts run at once, so connections per receiver are not bounded here (a bound would
   *   queue attempts behind a receiver's slow ones, their deadlines running).
   */
  constructor(
    policy: TargetPolicy,
    options: {
      timeoutMs: number;
      tracer?: Tracer;
      receiptIdOf?: (messageId: string) => string | undefined;
    },
  ) {
    this.#policy = policy;
    this.#timeoutMs = options.timeoutMs;
    this.#tracer = options.tracer;
    this.#receiptIdOf = options.receiptIdOf;
  }

  #dispatcher(): Agent {
    if (!this.#agent) {
      const { Agent, buildConnector } = loadUndici();
      this.#agent = new Agent({
        connect: checkedConnector(buildConnector, this.#policy, this.#timeoutMs),
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
    }
    return this.#agent;
  }

  /**
   * Sends one attempt; with a tracer, in a CLIENT span in the trace stored with the delivery (its own trace
   * without one), whose `traceparent` the receiver gets.
   */
  send(delivery: ClaimedDelivery): Promise<SendResult> {
    if (!this.#tracer) return this.#send(delivery, {});
    return tracedAttempt(this.#tracer, delivery, (headers) => this.#send(delivery, headers));
  }

  /**
   * A `reply.completed` payload with the reply's receipt id (`data.receiptId`) when the server signs receipts:
   * the trigger that writes the delivery knows nothing of receipts, so the id is added as it is sent.
   */
  #withReceipt(payload: ClaimedDelivery['payload']): ClaimedDelivery['payload'] {
    if (!this.#receiptIdOf || typeof payload === 'string' || payload.type !== 'reply.completed') {
      return payload;
    }
    const data = payload.data as { reply?: { id?: unknown } } | undefined;
    const replyId = data?.reply?.id;
    const receiptId = typeof replyId === 'string' ? this.#receiptIdOf(replyId) : undefined;
    return receiptId === undefined ? payload : { ...payload, data: { ...data, receiptId } };
  }

  async #send(
    delivery: ClaimedDelivery,
    traceHeaders: Record<string, string>,
  ): Promise<SendResult> {
    const body = JSON.stringify(this.#withReceipt(delivery.payload));
    const webhookId = `msg_${delivery.id}`;
    const timestamp = new Date();
    const signature = new Webhook(delivery.secret).sign(webhookId, timestamp, body);
    const started = performance.now();
    const attemptedAt = timestamp.toISOString();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const dispatcher = this.#dispatcher();
      const response = await loadUndici().request(delivery.url, {
        method: 'POST',
        body,
        dispatcher,
        signal: AbortSignal.timeout(this.#timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Parley-Webhooks/1',
          'webhook-id': webhookId,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
          ...traceHeaders,
        },
      });
      const responseBody = await readStart(response.body);
      const status = response.statusCode;
      const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
      return {
        ok: status >= 200 && status < 300,
        attemptedAt,
        durationMs: elapsed(),
        responseStatus: status,
        responseBody,
        error: status >= 300 && status < 400 ? 'redirects are not followed' : null,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    } catch (error) {
      return {
        ok: false,
        attemptedAt,
        durationMs: elapsed(),
        responseStatus: null,
        responseBody: null,
        error: describeFailure(error),
        ...(isRefusal(error) ? { refused: true } : {}),
      };
    }
  }

  close(): Promise<void> {
    return this.#agent?.close() ?? Promise.resolve();
  }
}

/**
 * undici's connector with the policy's lookup, which also runs the policy on an address literal first: Node
 * calls no lookup for a literal, so without it a literal would connect unchecked (a subscription made while
 * its private address was allowed would keep delivering after the allowance is removed).
 */
function checkedConnector(
  build: typeof buildConnector,
  policy: TargetPolicy,
  timeoutMs: number,
): buildConnector.connector {
  const connect = build({ lookup: policy.lookup, timeout: timeoutMs });
  return (options, callback) => {
    const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) === 0) {
      connect(options, callback);
      return;
    }
    policy.lookup(host, { all: true }, (error) => {
      if (error) callback(error, null);
      else connect(options, callback);
    });
  };
}

/** Whether an attempt failed because the target policy refused its address. */
function isRefusal(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return (
    (error as { code?: unknown } | undefined)?.code === 'ETARGETREFUSED' ||
    cause?.code === 'ETARGETREFUSED'
  );
}

/** Reads at most {@link RESPONSE_BODY_LIMIT} bytes of an answer, then lets the rest go. */
async function readStart(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_BODY_LIMIT) break;
    }
  } catch {
    // A receiver that cuts its answer short still answered with its status.
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
}

/** `Retry-After` as seconds or an HTTP date, in ms from now; at most a day. */
export function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  const day = 24 * 60 * 60 * 1000;
  if (/^\d+$/.test(text.trim())) return Math.min(Number(text.trim()) * 1000, day);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(at - Date.now(), 0), day);
}

/** A failure without anything that could carry the payload or a secret: the error's kind and code. */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return 'request failed';
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (code === 'ETARGETREFUSED') return error.message;
  if (cause?.code === 'ETARGETREFUSED') {
    return typeof cause.message === 'string' ? cause.message : 'target refused';
  }
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timed out';
  const known =
    typeof code === 'string' ? code : typeof cause?.code === 'string' ? cause.code : undefined;
  return known ? `request failed (${known})` : `request failed (${error.name})`;
}
