import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two secrets in constant time. Both sides are hashed first, so neither the content nor the length of
 * the expected value leaks through timing.
 *
 * @example
 * if (!safeEqual(request.headers['x-api-key'], runtime.getSetting('WEBHOOK_API_KEY'))) res.status(401);
 */
export function safeEqual(
  received: string | Uint8Array | undefined | null,
  expected: string | Uint8Array | undefined | null,
): boolean {
  if (received == null || expected == null) return false;
  const left = createHash('sha256').update(received).digest();
  const right = createHash('sha256').update(expected).digest();
  return timingSafeEqual(left, right);
}
