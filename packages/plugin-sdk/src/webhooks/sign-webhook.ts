import { hmacSha256, type WebhookBody } from './hmac-sha256';
import { PARLEY_SIGNATURE_HEADER, PARLEY_TIMESTAMP_HEADER } from './webhook-headers';

/** Arguments of {@link signWebhook}. */
export interface SignWebhookOptions {
  /** The exact body that will be sent. */
  rawBody: WebhookBody;
  /** The secret shared with the receiver. */
  secret: string;
  /** Signing time in unix seconds; defaults to now. */
  timestamp?: number;
}

/** The headers that carry a Parley webhook signature. */
export interface SignedWebhookHeaders {
  /** `v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`. */
  [PARLEY_SIGNATURE_HEADER]: string;
  /** The signing time in unix seconds. */
  [PARLEY_TIMESTAMP_HEADER]: string;
}

/**
 * Signs an outgoing webhook with Parley's scheme: `x-parley-timestamp: <unix seconds>` and
 * `x-parley-signature: v1=<hex>`, the HMAC-SHA256 of `${timestamp}.${rawBody}`. Binding the timestamp into the
 * signature lets the receiver refuse replays with {@link verifyWebhookSignature}.
 *
 * @example
 * const body = JSON.stringify(event);
 * await fetch(url, {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json', ...signWebhook({ rawBody: body, secret }) },
 *   body,
 * });
 *
 * @throws TypeError when the secret is empty; RangeError when the timestamp is not a whole, non-negative number.
 */
export function signWebhook(options: SignWebhookOptions): SignedWebhookHeaders {
  const { rawBody, secret, timestamp = Math.floor(Date.now() / 1000) } = options;
  if (!secret) throw new TypeError('A webhook secret is required to sign');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`The timestamp must be whole unix seconds, got ${timestamp}`);
  }
  const signature = hmacSha256(secret, `${timestamp}.`, rawBody).toString('hex');
  return {
    [PARLEY_SIGNATURE_HEADER]: `v1=${signature}`,
    [PARLEY_TIMESTAMP_HEADER]: String(timestamp),
  };
}
