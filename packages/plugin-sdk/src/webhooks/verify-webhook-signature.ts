import { timingSafeEqual } from 'node:crypto';
import { hmacSha256, type WebhookBody } from './hmac-sha256';

const SIGNATURE = /^v1=([0-9a-fA-F]{64})$/;
const TIMESTAMP = /^\d{1,15}$/;

/** Arguments of {@link verifyWebhookSignature}. */
export interface VerifyWebhookSignatureOptions {
  /** The request body exactly as received (`request.rawBody`). */
  rawBody: WebhookBody;
  /** The secret shared with the sender; an empty one never verifies. */
  secret: string | undefined | null;
  /** The `x-parley-signature` header. */
  signatureHeader: string | undefined | null;
  /** The `x-parley-timestamp` header. */
  timestampHeader: string | undefined | null;
  /** Largest accepted distance between the timestamp and now, either way, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Why a webhook signature was refused. */
export type WebhookVerificationFailure = 'missing' | 'malformed' | 'mismatch' | 'expired';

/** Outcome of {@link verifyWebhookSignature}. */
export type WebhookVerification = { ok: true } | { ok: false; reason: WebhookVerificationFailure };

/**
 * Verifies a webhook signed with {@link signWebhook}. Checks, in order: both headers present (`missing`), well
 * formed (`malformed`), the timestamp within `toleranceSeconds` of now in either direction, so that a captured
 * request cannot be replayed later and a clock far ahead is refused too (`expired`), and the signature, compared
 * in constant time (`mismatch`). Never throws on request input.
 *
 * @example
 * const result = verifyWebhookSignature({
 *   rawBody: request.rawBody,
 *   secret: runtime.getSetting('PARTNER_WEBHOOK_SECRET'),
 *   signatureHeader: request.headers['x-parley-signature'],
 *   timestampHeader: request.headers['x-parley-timestamp'],
 * });
 * if (!result.ok) return response.status(401).json({ success: false, error: result.reason });
 *
 * @throws RangeError when `toleranceSeconds` is negative or not a number.
 */
export function verifyWebhookSignature(
  options: VerifyWebhookSignatureOptions,
): WebhookVerification {
  const { rawBody, secret, signatureHeader, timestampHeader } = options;
  const { toleranceSeconds = 300, now = Date.now } = options;
  if (!(toleranceSeconds >= 0)) {
    throw new RangeError(`toleranceSeconds must be zero or more, got ${toleranceSeconds}`);
  }
  if (!signatureHeader || !timestampHeader) return { ok: false, reason: 'missing' };
  const hex = SIGNATURE.exec(signatureHeader.trim())?.[1];
  const timestamp = timestampHeader.trim();
  if (hex === undefined || !TIMESTAMP.test(timestamp)) return { ok: false, reason: 'malformed' };
  const age = Math.floor(now() / 1000) - Number(timestamp);
  if (Math.abs(age) > toleranceSeconds) return { ok: false, reason: 'expired' };
  if (!secret) return { ok: false, reason: 'mismatch' };
  const expected = hmacSha256(secret, `${timestamp}.`, rawBody);
  // The pattern fixes the length at 32 bytes, so both sides are the same length for timingSafeEqual.
  if (!timingSafeEqual(Buffer.from(hex, 'hex'), expected)) return { ok: false, reason: 'mismatch' };
  return { ok: true };
}
