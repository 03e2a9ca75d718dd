import { timingSafeEqual } from 'node:crypto';
import { hmacSha256, type WebhookBody } from './hmac-sha256';

const GITHUB_SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/** Arguments of {@link verifyGithubSignature}. */
export interface VerifyGithubSignatureOptions {
  /** The request body exactly as received (`request.rawBody`), never a re-serialised copy. */
  rawBody: WebhookBody;
  /** The `x-hub-signature-256` header. */
  signatureHeader: string | undefined | null;
  /** The webhook secret configured on GitHub. */
  secret: string | undefined | null;
}

/**
 * Checks a GitHub webhook signature: `x-hub-signature-256` must be `sha256=` followed by the hex HMAC-SHA256 of
 * the raw body (either case), compared in constant time. A missing, malformed or wrong-length header, or a
 * missing secret, gives false; it never throws, so a route can answer 401 for every bad request alike.
 *
 * @example
 * const valid = verifyGithubSignature({
 *   rawBody: request.rawBody,
 *   signatureHeader: request.headers['x-hub-signature-256'],
 *   secret: runtime.getSetting('GITHUB_WEBHOOK_SECRET'),
 * });
 * if (!valid) return response.status(401).json({ success: false, error: 'Invalid signature' });
 */
export function verifyGithubSignature(options: VerifyGithubSignatureOptions): boolean {
  const { rawBody, signatureHeader, secret } = options;
  // An unconfigured secret must not make the route open to anyone who signs with the empty key.
  if (!secret || typeof signatureHeader !== 'string') return false;
  const hex = GITHUB_SIGNATURE.exec(signatureHeader.trim())?.[1];
  if (hex === undefined) return false;
  // The pattern fixes the length at 32 bytes, so both sides are the same length for timingSafeEqual.
  return timingSafeEqual(Buffer.from(hex, 'hex'), hmacSha256(secret, rawBody));
}
