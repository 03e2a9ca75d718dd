import { createHash } from 'node:crypto';
import { ParleyError, unstorableTextReason } from '@parley/core';
import type { Context } from 'hono';

/** The header a client repeats on a retry so that the request takes effect once. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

const MAX_KEY_LENGTH = 255;

/**
 * The id a request's message is stored under when it carries an `Idempotency-Key`: a version 8 UUID (the
 * version the server reserves) hashed from the endpoint and the key. The same key on the same endpoint always
 * gives the same id, in every process and after a restart, so a retry finds what the first try stored instead
 * of storing it again. Undefined without the header.
 */
export function idempotentMessageId(c: Context, endpoint: string): string | undefined {
  const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
  if (key === undefined) return undefined;
  const reason = unstorableTextReason(key);
  if (key.trim() === '' || key.length > MAX_KEY_LENGTH || reason) {
    throw new ParleyError(
      'BAD_REQUEST',
      `Idempotency-Key must hold 1 to ${MAX_KEY_LENGTH} characters${reason ? ` and ${reason}` : ''}`,
    );
  }
  const hex = createHash('sha256').update(`parley:${endpoint}:${key}`).digest('hex');
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
