import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * The event a received webhook request carries, verified with `secret` by the `standardwebhooks` library (as a
 * receiver would, not by Parley's own code); throws when the signature does not hold.
 */
export function verifiedEvent<T>(
  secret: string,
  request: { headers: IncomingHttpHeaders; body: string },
): T {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  }) as T;
}
