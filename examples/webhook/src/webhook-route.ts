import { defineRoute, isRecord } from '@parley/plugin-sdk';

/** A webhook event as `POST /webhook` takes it. */
export interface WebhookEvent {
  event: string;
  data: unknown;
}

const MAX_EVENT_LENGTH = 200;

/** The event in a request body, or undefined when the body is not `{ event: string, data }`. */
export function parseWebhookEvent(body: unknown): WebhookEvent | undefined {
  if (!isRecord(body) || body.data === undefined) return undefined;
  const { event } = body;
  if (typeof event !== 'string' || event.trim() === '' || event.length > MAX_EVENT_LENGTH) {
    return undefined;
  }
  return { event, data: body.data };
}

/**
 * `POST /webhook`: takes `{ event, data }` from any sender, logs it and answers
 * `200 { success: true, message }`; anything else is `400 { success: false, error }`.
 *
 * Public on purpose: senders of generic webhooks cannot be given the server's API key. Nothing here acts on the
 * payload; a route that does should verify its sender (see `/secure/webhook` and `/github/webhook`).
 */
export const webhookRoute = defineRoute({
  type: 'POST',
  path: '/webhook',
  name: 'webhook',
  public: true,
  handler(request, response, runtime) {
    const event = parseWebhookEvent(request.body);
    if (!event) {
      response.status(400).json({
        success: false,
        error: 'Body must be a JSON object with "event" (a string) and "data"',
      });
      return;
    }
    runtime.logger.info({ event: event.event }, 'webhook received');
    response.json({ success: true, message: `Webhook event "${event.event}" received` });
  },
});
