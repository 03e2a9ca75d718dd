import { z } from 'zod';
import { uuidSchema } from './common';

/** The events an outbound webhook can be subscribed to. */
export const WEBHOOK_EVENT_TYPES = [
  'message.created',
  'reply.completed',
  'reply.failed',
  'reply.awaiting_approval',
] as const;

/** An outbound webhook event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** `POST /api/webhooks`: where to deliver which events, of one channel or of all. */
export const webhookSubscriptionRequestSchema = z.strictObject({
  url: z
    .string()
    .max(2048)
    .refine((value) => {
      try {
        return Boolean(new URL(value));
      } catch {
        return false;
      }
    }, 'must be an absolute URL'),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES))
    .min(1, 'must name at least one event')
    .max(WEBHOOK_EVENT_TYPES.length)
    .refine((events) => new Set(events).size === events.length, 'must not repeat an event'),
  channelId: uuidSchema.optional(),
});

/** @see webhookSubscriptionRequestSchema */
export type WebhookSubscriptionRequest = z.infer<typeof webhookSubscriptionRequestSchema>;

/** A subscription as `GET /api/webhooks` returns it; `secret` only in the answer that creates it. */
export const webhookSubscriptionSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  channelId: z.string().nullable(),
  createdAt: z.string(),
  disabledAt: z.string().nullable(),
  disabledReason: z.string().nullable(),
  secret: z.string().optional(),
});

/** @see webhookSubscriptionSchema */
export type WebhookSubscriptionInfo = z.infer<typeof webhookSubscriptionSchema>;

/** The query of `GET /api/webhooks/{id}/deliveries`. */
export const webhookDeliveriesQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
