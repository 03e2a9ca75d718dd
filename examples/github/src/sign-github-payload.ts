import { createHmac } from 'node:crypto';

/**
 * The `x-hub-signature-256` value GitHub sends for a body: `sha256=` + hex HMAC-SHA256 with the secret. For
 * tests and local tools that play GitHub.
 */
export function signGithubPayload(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
