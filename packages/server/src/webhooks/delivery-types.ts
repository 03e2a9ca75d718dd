/** The shapes a delivery takes between its store, its claim, its sending and its span. */

/** A delivery claimed for sending, with what sending needs. */
export interface ClaimedDelivery {
  id: string;
  subscriptionId: string;
  url: string;
  secret: string;
  payload: Record<string, unknown>;
  /** Attempts so far, this one included. */
  attempt: number;
  /** The trace context stored when it was enqueued (`traceparent`…), if any. */
  traceContext?: Record<string, string> | null;
}

/** One attempt, as recorded. */
export interface WebhookAttempt {
  attemptedAt: string;
  durationMs: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

/** What one attempt gave, besides the record: whether it succeeded and what the receiver asked. */
export interface SendResult extends WebhookAttempt {
  ok: boolean;
  /** The receiver's `Retry-After`, in ms, when it gave one. */
  retryAfterMs?: number;
  /** True when the target policy refused the address: nothing was sent. */
  refused?: boolean;
}
