import { type Kysely, sql } from 'kysely';

/**
 * Creates the webhook tables and the trigger that writes a delivery in the same transaction as the message
 * that causes it: a message and its deliveries commit together, so no event is lost when the process dies
 * right after storing it. The trigger costs one scan of the (small) subscription table per stored message.
 * (Shipped as migration 0010; 0012 replaces its row trigger with `replaceWebhookRowTrigger` below.)
 */
export async function createWebhookTables(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE webhook_subscriptions (
    id uuid PRIMARY KEY,
    url text NOT NULL,
    events jsonb NOT NULL,
    channel_id uuid,
    secret text NOT NULL,
    disabled_at timestamptz,
    disabled_reason text,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY,
    subscription_id uuid NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
    event_type text NOT NULL,
    payload jsonb NOT NULL,
    status text NOT NULL DEFAULT 'pending',
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    claimed_by text,
    claimed_until timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
    WHERE status = 'pending'`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_subscription_idx
    ON webhook_deliveries (subscription_id, created_at DESC)`.execute(db);
  await sql`CREATE TABLE webhook_attempts (
    id bigserial PRIMARY KEY,
    delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at timestamptz NOT NULL,
    duration_ms integer NOT NULL,
    response_status integer,
    response_body text,
    error text
  )`.execute(db);
  await sql`CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id)`.execute(
    db,
  );
  // A stored message as the messaging API returns it (snake_case, created_at in ISO 8601 UTC).
  await sql`CREATE FUNCTION parley_webhook_message(m messages) RETURNS jsonb
    LANGUAGE sql STABLE AS $$
      SELECT jsonb_build_object(
        'id', m.id, 'channel_id', m.channel_id, 'server_id', m.server_id, 'author_id', m.author_id,
        'author_name', m.author_name, 'content', m.content, 'source_type', m.source_type,
        'raw_message', m.raw_message, 'metadata', m.metadata, 'in_reply_to', m.in_reply_to,
        'created_at', to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    $$`.execute(db);
  await sql`CREATE FUNCTION parley_webhook_on_message() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_deliveries (id, subscription_id, event_type, payload)
      SELECT gen_random_uuid(), s.id, e.type,
             jsonb_build_object(
               'type', e.type,
               'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'data', e.data)
      FROM webhook_subscriptions s
      CROSS JOIN LATERAL (
        SELECT 'message.created' AS type,
               jsonb_build_object('channelId', NEW.channel_id, 'message', parley_webhook_message(NEW)) AS data
        UNION ALL
        SELECT 'reply.completed',
               jsonb_build_object(
                 'channelId', NEW.channel_id,
                 'reply', parley_webhook_message(NEW),
                 'message', (SELECT parley_webhook_message(q) FROM messages q WHERE q.id = NEW.in_reply_to))
        WHERE NEW.source_type = 'agent_response' AND NEW.in_reply_to IS NOT NULL
      ) AS e
      WHERE s.disabled_at IS NULL
        AND s.events ? e.type
        AND (s.channel_id IS NULL OR s.channel_id = NEW.channel_id);
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`CREATE TRIGGER parley_webhook_on_message AFTER INSERT ON messages
    FOR EACH ROW EXECUTE FUNCTION parley_webhook_on_message()`.execute(db);
}

/**
 * Replaces the row trigger of `createWebhookTables` with a statement trigger over the statement's new rows
 * (migration 0012). The row trigger ran PL/pgSQL and a join per stored message, subscriptions or not: about a
 * quarter of the embedded database's time per batched insert, and that thread bounds the submit throughput.
 * Now a batch with no enabled subscription costs one `EXISTS` on the subscription table; otherwise the
 * deliveries are the row trigger's, in the same transaction as their messages: the same events, payloads and
 * `reply.completed` lookup of the answered message (which sees the whole statement, so a question stored in
 * the same batch as its reply is found, as it was by the row trigger, which ran after the statement too).
 */
export async function replaceWebhookRowTrigger(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS parley_webhook_on_message ON messages`.execute(db);
  await sql`DROP FUNCTION IF EXISTS parley_webhook_on_message()`.execute(db);
  await createStatementTrigger(db, false);
}

/**
 * Gives each message the trace context of what stored it and the statement trigger's deliveries that context
 * (migration 0020), so a `message.created` or `reply.completed` delivery sent later, by any process, joins the
 * trace of the request that stored its message.
 */
export async function carryTraceContextToDeliveries(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('trace_context', 'jsonb').execute();
  await createStatementTrigger(db, true);
}

async function createStatementTrigger(db: Kysely<unknown>, withTrace: boolean): Promise<void> {
  const traceColumn = sql.raw(withTrace ? ', trace_context' : '');
  const traceValue = sql.raw(withTrace ? ', n.trace_context' : '');
  await sql`CREATE OR REPLACE FUNCTION parley_webhook_on_messages() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT EXISTS (SELECT FROM webhook_subscriptions WHERE disabled_at IS NULL) THEN
        RETURN NULL;
      END IF;
      INSERT INTO webhook_deliveries (id, subscription_id, event_type, payload${traceColumn})
      SELECT gen_random_uuid(), s.id, e.type,
             jsonb_build_object(
               'type', e.type,
               'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'data', e.data)${traceValue}
      FROM new_rows n
      CROSS JOIN LATERAL (
        SELECT 1 AS rank, 'message.created' AS type,
               jsonb_build_object('channelId', n.channel_id, 'message', parley_webhook_message(n)) AS data
        UNION ALL
        SELECT 2, 'reply.completed',
               jsonb_build_object(
                 'channelId', n.channel_id,
                 'reply', parley_webhook_message(n),
                 'message', (SELECT parley_webhook_message(q) FROM messages q WHERE q.id = n.in_reply_to))
        WHERE n.source_type = 'agent_response' AND n.in_reply_to IS NOT NULL
      ) AS e
      JOIN webhook_subscriptions s
        ON s.disabled_at IS NULL
       AND s.events ? e.type
       AND (s.channel_id IS NULL OR s.channel_id = n.channel_id)
      ORDER BY n.seq, e.rank;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`DROP TRIGGER IF EXISTS parley_webhook_on_messages ON messages`.execute(db);
  await sql`CREATE TRIGGER parley_webhook_on_messages AFTER INSERT ON messages
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION parley_webhook_on_messages()`.execute(db);
}
