import { ParleyError, unstorableTextReason } from '@parley/core';
import type { Context } from 'hono';

/** The header a client repeats on a retry so that the request takes effect once. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

const MAX_KEY_LENGTH = 255;

/**
 * A request's `Idempotency-Key`, checked (1 to 255 storable characters, else 400); undefined without the
 * header. The messaging service turns it into ids (see `messaging/idempotency.ts`).
 */
export function idempotencyKey(c: Context): string | undefined {
  const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
  if (key === undefined) return undefined;
  const reason = unstorableTextReason(key);
  if (key.trim() === '' || key.length > MAX_KEY_LENGTH || reason) {
    throw new ParleyError(
      'BAD_REQUEST',
      `Idempotency-Key must hold 1 to ${MAX_KEY_LENGTH} characters${reason ? ` and ${reason}` : ''}`,
    );
  }
  return key;
}
