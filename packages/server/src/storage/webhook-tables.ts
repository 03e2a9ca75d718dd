import type { ColumnType, Generated } from 'kysely';

/** `webhook_subscriptions`: where to deliver which events. */
export interface WebhookSubscriptionTable {
  id: string;
  url: string;
  /** The event types delivered, a JSON array of strings. */
  events: ColumnType<string[], string, string>;
  /** Only events of this channel, or of every channel when null. */
  channel_id: string | null;
  /** The signing secret (`whsec_…`); shown once, when the subscription is created. */
  secret: string;
  /** Set when the receiver answered `410 Gone`: nothing more is delivered. */
  disabled_at: ColumnType<Date, Date | string, Date | string> | null;
  disabled_reason: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/** `webhook_deliveries`: one event for one subscription, from its creation until delivered or dead. */
export interface WebhookDeliveryTable {
  /** Also the `webhook-id` of every attempt (`msg_<id>`). */
  id: string;
  subscription_id: string;
  event_type: string;
  /** The signed body: `{ type, timestamp, data }`. */
  payload: ColumnType<Record<string, unknown>, string, never>;
  status: 'pending' | 'delivered' | 'dead';
  attempts: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | string, Date | string>;
  claimed_by: string | null;
  claimed_until: ColumnType<Date, Date | string, Date | string> | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  /** The W3C trace context of what enqueued it: every attempt's span joins that trace. Null: none. */
  trace_context: ColumnType<Record<string, string> | null, string | null | undefined, never>;
}

/** `webhook_attempts`: every attempt of every delivery. */
export interface WebhookAttemptTable {
  id: Generated<string>;
  delivery_id: string;
  attempted_at: ColumnType<Date, Date | string, never>;
  duration_ms: number;
  /** The receiver's HTTP status, or null when no answer came (refused, timed out, target refused). */
  response_status: number | null;
  /** The first bytes of the receiver's answer, as text. */
  response_body: string | null;
  error: string | null;
}

/** The webhook tables, as Kysely sees them. */
export interface WebhookTables {
  webhook_subscriptions: WebhookSubscriptionTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
}
