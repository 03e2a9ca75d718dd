import { ParleyError, parseOrThrow } from '@parley/core';
import type { z } from 'zod';
import {
  type DstackGuest,
  getKeyResponseSchema,
  getQuoteResponseSchema,
  infoResponseSchema,
} from './dstack-guest';
import { postJson } from './post-json';

/** Options of {@link createDstackClient}. */
export interface DstackClientOptions {
  /** `/var/run/dstack.sock`, another socket path, or an http(s) URL of a simulator. */
  endpoint: string;
  /** Per-request deadline (default 30000 ms, as the dstack SDK; quotes can take seconds on real hardware). */
  timeoutMs?: number;
}

const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * A client of the dstack guest API (`/GetKey`, `/GetQuote`, `/Info`) with the public dstack SDK's wire format:
 * HTTP/1.1 POST with a JSON body, over a unix socket or to an HTTP URL.
 *
 * @example
 * const dstack = createDstackClient({ endpoint: '/var/run/dstack.sock' });
 * const { quote } = await dstack.getQuote(reportData);
 */
export function createDstackClient(options: DstackClientOptions): DstackGuest {
  const { endpoint } = options;
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function call<T extends z.ZodType>(
    path: string,
    body: unknown,
    schema: T,
    timeout = timeoutMs,
  ) {
    const answer = await postJson({
      endpoint,
      path,
      body,
      timeoutMs: timeout,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    // dstack reports some failures as a 200 with an `error` field.
    if (typeof answer === 'object' && answer !== null && 'error' in answer) {
      throw new ParleyError(
        'INTERNAL',
        `dstack ${path} failed: ${String(answer.error).slice(0, 200)}`,
      );
    }
    try {
      return parseOrThrow(schema, answer, `dstack ${path} answer`);
    } catch (error) {
      throw new ParleyError('INTERNAL', (error as Error).message, { cause: error });
    }
  }

  return {
    endpoint,
    getKey: ({ path, purpose = '', algorithm = 'secp256k1' }) =>
      call('/GetKey', { path, purpose, algorithm }, getKeyResponseSchema),
    async getQuote(reportData) {
      // dstack would reject it too, but only after a round trip; and it must be a rejection, never a throw.
      if (reportData.length > 64) {
        throw new ParleyError('BAD_REQUEST', 'Report data exceeds 64 bytes');
      }
      return call(
        '/GetQuote',
        { report_data: Buffer.from(reportData).toString('hex') },
        getQuoteResponseSchema,
      );
    },
    info: (timeout) => call('/Info', {}, infoResponseSchema, timeout),
  };
}
