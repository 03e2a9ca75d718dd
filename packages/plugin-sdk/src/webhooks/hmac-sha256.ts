import { createHmac } from 'node:crypto';

/** A raw request body as signed: its exact bytes, or a string hashed as UTF-8. */
export type WebhookBody = string | Uint8Array;

/** HMAC-SHA256 of the concatenated parts, each string hashed as UTF-8. */
export function hmacSha256(secret: string, ...parts: readonly WebhookBody[]): Buffer {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}
