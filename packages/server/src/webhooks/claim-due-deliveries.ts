import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from '../storage/schema';
import type { ClaimedDelivery } from './delivery-types';

/** What one claim asks for. */
export interface ClaimRequest {
  /** The claiming process's id. */
  worker: string;
  /** How long the claim holds each delivery; after it, another process may claim the delivery again. */
  leaseMs: number;
  /** Most deliveries claimed. */
  limit: number;
  /** Most deliveries of one subscription the worker holds at once, those it holds already included. */
  perSubscription: number;
  /** How many deliveries of each subscription the worker holds now (attempts under way). */
  held: ReadonlyMap<string, number>;
}

/** How many of the oldest due deliveries of subscriptions with room one claim ranks. */
export const CLAIM_WINDOW = 512;

/**
 * Claims due deliveries for a worker, never more of one subscription than it has room for: a subscription
 * whose receiver keeps the worker's attempts waiting gets nothing more until one ends, so nothing claimed
 * ever waits behind its own subscription while holding a slot others could use. The subscriptions at their
 * bound are left out before anything is read, so their backlog costs a filtered index walk and never crowds
 * out the others. Of the oldest {@link CLAIM_WINDOW} due deliveries of the rest, the least busy subscriptions'
 * go first (a delivery's place is its subscription's held count plus its rank among them), then the oldest.
 * `FOR UPDATE SKIP LOCKED` and the lease keep two processes from claiming one delivery; each process counts
 * only what it holds, so the bound is per process, as the dispatcher's other bounds. A delivery of a disabled
 * subscription that is still pending (written in a transaction that saw the subscription before it was
 * disabled) is claimed like any other, and ended unsent by the check before each attempt.
 */
export async function claimDueDeliveries(
  db: Kysely<DatabaseSchema>,
  request: ClaimRequest,
): Promise<ClaimedDelivery[]> {
  const { worker, leaseMs, limit, perSubscription, held } = request;
  const holding = [...held].filter(([, count]) => count > 0);
  const full = holding.filter(([, count]) => count >= perSubscription).map(([id]) => id);
  const { rows } = await sql<{
    id: string;
    subscription_id: string;
    url: string;
    secret: string;
    payload: Record<string, unknown> | string;
    attempts: number;
    trace_context: Record<string, string> | string | null;
  }>`WITH held AS (
       SELECT * FROM unnest(${holding.map(([id]) => id)}::uuid[], ${holding.map(([, n]) => n)}::int[])
         AS h (subscription_id, n)),
     candidates AS (
       SELECT d.id, d.subscription_id, d.next_attempt_at FROM webhook_deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_at <= now()
         AND (d.claimed_until IS NULL OR d.claimed_until < now())
         AND d.subscription_id <> ALL (${full}::uuid[])
       ORDER BY d.next_attempt_at
       LIMIT ${CLAIM_WINDOW}),
     due AS (
       SELECT c.id, c.next_attempt_at,
              coalesce(h.n, 0) + row_number() OVER (
                PARTITION BY c.subscription_id ORDER BY c.next_attempt_at, c.id) AS place
       FROM candidates c LEFT JOIN held h ON h.subscription_id = c.subscription_id),
     picked AS (
       SELECT id FROM due WHERE place <= ${perSubscription}
       ORDER BY place, next_attempt_at, id
       LIMIT ${limit}),
     locked AS (
       SELECT d.id FROM webhook_deliveries d
       WHERE d.id IN (SELECT id FROM picked) AND d.status = 'pending'
         AND (d.claimed_until IS NULL OR d.claimed_until < now())
       FOR UPDATE SKIP LOCKED),
     claimed AS (
       UPDATE webhook_deliveries d
       SET claimed_by = ${worker},
           claimed_until = now() + make_interval(secs => ${leaseMs / 1000}),
           attempts = d.attempts + 1
       FROM locked WHERE d.id = locked.id
       RETURNING d.id, d.subscription_id, d.payload, d.attempts, d.trace_context)
     SELECT c.id, c.subscription_id, c.payload, c.attempts, c.trace_context, s.url, s.secret
     FROM claimed c JOIN webhook_subscriptions s ON s.id = c.subscription_id`.execute(db);
  return rows.map((row) => ({
    id: row.id,
    subscriptionId: row.subscription_id,
    url: row.url,
    secret: row.secret,
    payload:
      typeof row.payload === 'string'
        ? (JSON.parse(row.payload) as Record<string, unknown>)
        : row.payload,
    attempt: row.attempts,
    traceContext:
      typeof row.trace_context === 'string'
        ? (JSON.parse(row.trace_context) as Record<string, string>)
        : row.trace_context,
  }));
}
