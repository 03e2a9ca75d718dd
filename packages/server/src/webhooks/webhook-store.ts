import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from '../storage/schema';
import { storageCall } from '../storage/to-storage-error';
import { type ClaimRequest, claimDueDeliveries } from './claim-due-deliveries';
import type { ClaimedDelivery, WebhookAttempt } from './delivery-types';
import { storableTraceContext } from '../tracing/trace-context';

/** A subscription as the API shows it (never with its secret, but when created). */
export interface WebhookSubscription {
  id: string;
  url: string;
  events: string[];
  channelId: string | null;
  createdAt: string;
  /** When the receiver answered `410 Gone`, and nothing more is delivered. */
  disabledAt: string | null;
  disabledReason: string | null;
}

export type { ClaimedDelivery, WebhookAttempt } from './delivery-types';

/** A delivery with its attempts, as `GET …/deliveries` shows it. */
export interface WebhookDelivery {
  id: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'dead';
  attempts: WebhookAttempt[];
  nextAttemptAt: string | null;
  createdAt: string;
  payload: Record<string, unknown>;
}

/** What an attempt led to. */
export type AttemptOutcome =
  | { status: 'delivered' }
  | { status: 'retry'; afterMs: number }
  | { status: 'dead'; disableSubscription?: string };

const iso = (value: Date | string) => new Date(value).toISOString();

/**
 * Subscriptions, deliveries and attempts. Deliveries of stored messages are written by a database trigger in
 * the message's own transaction (see `storage/webhook-migration.ts`); a failed reply, which stores nothing, is written
 * here. A due delivery is claimed by one process at a time with a lease (`FOR UPDATE SKIP LOCKED`), so the
 * processes of a cluster never send one delivery at once, and a process that dies mid-send releases it when
 * the lease runs out.
 */
export class WebhookStore {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly sync: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /**
   * Stores a subscription unless `max` exist already (undefined when full): the count and the insert run in
   * one transaction under a transaction-scoped advisory lock, so creates released together on any number of
   * processes never pass the bound.
   */
  async create(
    input: {
      url: string;
      events: readonly string[];
      channelId: string | null;
      secret: string;
    },
    max = Number.POSITIVE_INFINITY,
  ): Promise<WebhookSubscription | undefined> {
    const row = await storageCall('webhook subscription', () =>
      this.db.transaction().execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtextextended('parley.webhook_subscriptions.bound', 0))`.execute(
          trx,
        );
        const { n } = await trx
          .selectFrom('webhook_subscriptions')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow();
        if (Number(n) >= max) return undefined;
        return trx
          .insertInto('webhook_subscriptions')
          .values({
            id: randomUUID(),
            url: input.url,
            events: JSON.stringify(input.events),
            channel_id: input.channelId,
            secret: input.secret,
            disabled_at: null,
            disabled_reason: null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      }),
    );
    if (!row) return undefined;
    await this.sync();
    return toSubscription(row);
  }

  async count(): Promise<number> {
    const row = await storageCall('webhook subscriptions', () =>
      this.db
        .selectFrom('webhook_subscriptions')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow(),
    );
    return Number(row.n);
  }

  async list(): Promise<WebhookSubscription[]> {
    const rows = await storageCall('webhook subscriptions', () =>
      this.db.selectFrom('webhook_subscriptions').selectAll().orderBy('created_at').execute(),
    );
    return rows.map(toSubscription);
  }

  async get(id: string): Promise<WebhookSubscription | undefined> {
    const row = await storageCall('webhook subscription', () =>
      this.db
        .selectFrom('webhook_subscriptions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst(),
    );
    return row && toSubscription(row);
  }

  /** Deletes a subscription and its deliveries; false when there was none. */
  async delete(id: string): Promise<boolean> {
    const result = await storageCall('webhook subscription', () =>
      this.db.deleteFrom('webhook_subscriptions').where('id', '=', id).executeTakeFirst(),
    );
    await this.sync();
    return result.numDeletedRows > 0n;
  }

  /** Writes a `reply.failed` or `reply.awaiting_approval` delivery for every subscription that wants it. */
  async addReplyEvent(
    type: 'reply.failed' | 'reply.awaiting_approval',
    channelId: string,
    data: object,
  ): Promise<void> {
    const payload = JSON.stringify({
      type,
      timestamp: new Date().toISOString(),
      data,
    });
    // Sent later, perhaps by another process: its attempts join the trace of what enqueued it.
    const trace = storableTraceContext();
    const traceContext = trace ? JSON.stringify(trace) : null;
    const result = await storageCall('webhook delivery', () =>
      sql`INSERT INTO webhook_deliveries (id, subscription_id, event_type, payload, trace_context)
          SELECT gen_random_uuid(), s.id, ${type}, ${payload}::jsonb, ${traceContext}::jsonb
          FROM webhook_subscriptions s
          WHERE s.disabled_at IS NULL AND s.events ? ${type}
            AND (s.channel_id IS NULL OR s.channel_id = ${channelId}::uuid)`.execute(this.db),
    );
    // No subscription wanted it: nothing was written that must outlive a crash.
    if (Number(result.numAffectedRows ?? 0) > 0) await this.sync();
  }

  /** Claims due deliveries for a worker, within its bound per subscription (see {@link claimDueDeliveries}). */
  claimDue(request: ClaimRequest): Promise<ClaimedDelivery[]> {
    return claimDueDeliveries(this.db, request);
  }

  /**
   * Whether a claimed delivery may still be sent, asked just before each attempt: false when it is no longer
   * pending and held by this worker (another delivery's `410 Gone` ended it) or its subscription was disabled or
   * deleted since the claim. A delivery it refuses is let go without an attempt, dead if it was still pending.
   */
  async stillWanted(delivery: ClaimedDelivery, worker: string): Promise<boolean> {
    const { rows } = await sql<{ id: string }>`SELECT d.id FROM webhook_deliveries d
        JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.id = ${delivery.id} AND d.status = 'pending' AND d.claimed_by = ${worker}
          AND s.disabled_at IS NULL`.execute(this.db);
    if (rows.length > 0) return true;
    await sql`UPDATE webhook_deliveries SET claimed_by = NULL, claimed_until = NULL, status = 'dead'
              WHERE id = ${delivery.id} AND claimed_by = ${worker}
                AND status IN ('pending', 'dead')`.execute(this.db);
    await this.sync();
    return false;
  }

  /** Records an attempt of a delivery this worker holds, and what follows from it. */
  async finishAttempt(
    delivery: ClaimedDelivery,
    attempt: WebhookAttempt,
    outcome: AttemptOutcome,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: delivery.id,
          attempted_at: attempt.attemptedAt,
          duration_ms: attempt.durationMs,
          response_status: attempt.responseStatus,
          response_body: attempt.responseBody,
          error: attempt.error,
        })
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({
          status: outcome.status === 'retry' ? 'pending' : outcome.status,
          claimed_by: null,
          claimed_until: null,
          // The database's clock, which every process of a cluster claims by.
          ...(outcome.status === 'retry'
            ? {
                next_attempt_at: sql<Date>`now() + make_interval(secs => ${outcome.afterMs / 1000})`,
              }
            : {}),
        })
        .where('id', '=', delivery.id)
        .execute();
      if (outcome.status === 'retry') {
        // The subscription was disabled while this attempt was under way (another delivery met 410 Gone): the
        // retry it asks for is never made.
        await sql`UPDATE webhook_deliveries d SET status = 'dead'
                  FROM webhook_subscriptions s
                  WHERE d.id = ${delivery.id} AND s.id = d.subscription_id
                    AND s.disabled_at IS NOT NULL`.execute(trx);
      }
      if (outcome.status === 'dead' && outcome.disableSubscription) {
        await trx
          .updateTable('webhook_subscriptions')
          .set({ disabled_at: new Date(), disabled_reason: outcome.disableSubscription })
          .where('id', '=', delivery.subscriptionId)
          .execute();
        // What was still waiting for a gone receiver will never be delivered either.
        await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'dead' })
          .where('subscription_id', '=', delivery.subscriptionId)
          .where('status', '=', 'pending')
          .execute();
      }
    });
    await this.sync();
  }

  /** The newest deliveries of a subscription, with their attempts. */
  async deliveries(subscriptionId: string, limit: number): Promise<WebhookDelivery[]> {
    const rows = await storageCall('webhook deliveries', () =>
      this.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'event_type', 'status', 'next_attempt_at', 'created_at', 'payload'])
        .where('subscription_id', '=', subscriptionId)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .limit(limit)
        .execute(),
    );
    if (rows.length === 0) return [];
    const attempts = await storageCall('webhook attempts', () =>
      this.db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where(
          'delivery_id',
          'in',
          rows.map((row) => row.id),
        )
        .orderBy('id')
        .execute(),
    );
    return rows.map((row) => ({
      id: row.id,
      eventType: row.event_type,
      status: row.status,
      nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
      createdAt: iso(row.created_at),
      payload: row.payload,
      attempts: attempts
        .filter((attempt) => attempt.delivery_id === row.id)
        .map((attempt) => ({
          attemptedAt: iso(attempt.attempted_at),
          durationMs: attempt.duration_ms,
          responseStatus: attempt.response_status,
          responseBody: attempt.response_body,
          error: attempt.error,
        })),
    }));
  }

  /**
   * Makes a delivery due now (one more attempt for a dead one); false when the subscription has no such
   * delivery or it was delivered already.
   */
  async retry(subscriptionId: string, deliveryId: string): Promise<boolean> {
    const result = await storageCall('webhook delivery', () =>
      this.db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: new Date() })
        .where('id', '=', deliveryId)
        .where('subscription_id', '=', subscriptionId)
        .where('status', '!=', 'delivered')
        .executeTakeFirst(),
    );
    await this.sync();
    return result.numUpdatedRows > 0n;
  }

  /** Whether the subscription has a delivery with this id (in any state). */
  async hasDelivery(subscriptionId: string, deliveryId: string): Promise<boolean> {
    const row = await storageCall('webhook delivery', () =>
      this.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('id', '=', deliveryId)
        .where('subscription_id', '=', subscriptionId)
        .executeTakeFirst(),
    );
    return row !== undefined;
  }
}

function toSubscription(row: {
  id: string;
  url: string;
  events: string[] | string;
  channel_id: string | null;
  created_at: Date | string;
  disabled_at: Date | string | null;
  disabled_reason: string | null;
}): WebhookSubscription {
  return {
    id: row.id,
    url: row.url,
    events: typeof row.events === 'string' ? (JSON.parse(row.events) as string[]) : row.events,
    channelId: row.channel_id,
    createdAt: iso(row.created_at),
    disabledAt: row.disabled_at === null ? null : iso(row.disabled_at),
    disabledReason: row.disabled_reason,
  };
}
