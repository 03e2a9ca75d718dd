import { createTokenUsageTable } from '../guards/token-usage-table';
import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely';
import { createA2ATaskTable } from '../a2a/a2a-task-migration';
import { createAuditLogTable } from '../audit/audit-migration';
import { createAgentAndSessionTables } from './agent-session-migration';
import { createAttachmentTable } from './attachment-migration';
import { createChannelColumns } from './channel-migration';
import { createChannelMemberTable } from './channel-member-migration';
import { createMessageAuthorIndexes } from './message-index-migration';
import { createReceiptTables } from '../receipts/receipt-tables';
import { createChannelSummaryTable } from '../memory/summary/summary-migration';
import { createMemoryTables } from '../memory/memory-migration';
import {
  carryTraceContextToDeliveries,
  createWebhookTables,
  replaceWebhookRowTrigger,
} from './webhook-migration';

/**
 * Every migration, in order. One set for the embedded PGlite database and for PostgreSQL: both are PostgreSQL.
 * Never edit a migration that has shipped; add a new one.
 */
const migrations: Record<string, Migration> = {
  '0001_messaging': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('channels')
        .addColumn('id', 'uuid', (column) => column.primaryKey())
        .addColumn('server_id', 'uuid', (column) => column.notNull())
        .addColumn('agent_id', 'uuid')
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createTable('messages')
        .addColumn('id', 'uuid', (column) => column.primaryKey())
        .addColumn('seq', 'bigserial', (column) => column.notNull())
        .addColumn('channel_id', 'uuid', (column) =>
          column.notNull().references('channels.id').onDelete('cascade'),
        )
        .addColumn('server_id', 'uuid', (column) => column.notNull())
        .addColumn('author_id', 'text', (column) => column.notNull())
        .addColumn('author_name', 'text', (column) => column.notNull())
        .addColumn('content', 'text', (column) => column.notNull())
        .addColumn('source_type', 'text', (column) => column.notNull())
        .addColumn('raw_message', 'jsonb')
        .addColumn('metadata', 'jsonb', (column) => column.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn('in_reply_to', 'uuid')
        .addColumn('created_at', 'timestamptz', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('messages_channel_created_idx')
        .on('messages')
        .columns(['channel_id', 'created_at desc', 'seq desc'])
        .execute();
    },
  },
  '0002_scheduled_messages': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('scheduled_messages')
        .addColumn('id', 'uuid', (column) => column.primaryKey())
        .addColumn('agent_id', 'uuid', (column) => column.notNull())
        .addColumn('channel_id', 'uuid', (column) => column.notNull())
        .addColumn('server_id', 'uuid', (column) => column.notNull())
        .addColumn('content', 'text', (column) => column.notNull())
        .addColumn('metadata', 'jsonb', (column) => column.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn('send_at', 'timestamptz', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull().defaultTo('pending'))
        .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('claimed_by', 'text')
        .addColumn('claimed_until', 'timestamptz')
        .addColumn('message_id', 'uuid')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createIndex('scheduled_messages_due_idx')
        .on('scheduled_messages')
        .columns(['status', 'send_at'])
        .execute();
    },
  },
  '0003_tee_agents': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('tee_agents')
        .addColumn('agent_id', 'uuid', (column) => column.primaryKey())
        .addColumn('id', 'uuid', (column) => column.notNull())
        .addColumn('agent_name', 'text', (column) => column.notNull())
        .addColumn('public_key', 'text', (column) => column.notNull())
        .addColumn('created_at', 'bigint', (column) => column.notNull())
        .addColumn('attestation', 'text', (column) => column.notNull())
        .execute();
    },
  },
  '0004_messages_without_channel_foreign_key': {
    // The store upserts a message's channel in the same batch, before the message, on its only write path;
    // the foreign key's per-row lookup added ~40 µs to every insert (45% of it) and guarded nothing more.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('messages').dropConstraint('messages_channel_id_fkey').execute();
    },
  },
  '0005_messages_in_reply_to': {
    // An idempotent retry looks up the reply to its message (replies are few per message: no unique index).
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('messages_in_reply_to_idx')
        .on('messages')
        .column('in_reply_to')
        .where(sql.ref('in_reply_to'), 'is not', null)
        .execute();
    },
  },
  '0010_webhooks': {
    // Outbound webhooks (src/webhooks). Numbered apart from the messaging migrations so that work on both can
    // land in either order.
    async up(db: Kysely<unknown>) {
      await createWebhookTables(db);
    },
  },
  '0011_idempotency_keys': {
    // Idempotency: the secret its keyed ids are hashed with (one per database, so every process of a cluster
    // derives the same ids), what each key was first used for (a different request under it is a 409), and
    // which reply answers it (so that two processes taking one key at once start one reply).
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('server_secrets')
        .addColumn('name', 'text', (column) => column.primaryKey())
        .addColumn('value', 'text', (column) => column.notNull())
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('id', 'uuid', (column) => column.primaryKey())
        .addColumn('fingerprint', 'text', (column) => column.notNull())
        .addColumn('reply_id', 'uuid')
        .addColumn('reply_claimed_at', 'timestamptz')
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .execute();
    },
  },
  '0012_webhook_statement_trigger': {
    // The webhook trigger runs once per insert statement, not once per message: with no enabled subscription a
    // batch of stored messages costs one EXISTS instead of PL/pgSQL and a join per row (measured in
    // docs/decisions.md). The deliveries written, when there are subscriptions, are the same.
    async up(db: Kysely<unknown>) {
      await replaceWebhookRowTrigger(db);
    },
  },
  '0013_agent_components': {
    // elizaOS components (runtime.getComponent, createComponent…): plugins' durable records, per agent. Reads
    // are by agent, entity and type; the agent's count is checked on every insert.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('agent_components')
        .addColumn('id', 'uuid', (column) => column.primaryKey())
        .addColumn('agent_id', 'uuid', (column) => column.notNull())
        .addColumn('entity_id', 'uuid', (column) => column.notNull())
        .addColumn('type', 'text', (column) => column.notNull())
        .addColumn('world_id', 'uuid')
        .addColumn('room_id', 'uuid')
        .addColumn('source_entity_id', 'uuid')
        .addColumn('data', 'jsonb', (column) => column.notNull())
        .addColumn('created_at', 'timestamptz', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('agent_components_entity_idx')
        .on('agent_components')
        .columns(['agent_id', 'entity_id', 'type'])
        .execute();
    },
  },
  '0014_reply_approvals': {
    // A reply paused for approval is stored, not held in memory: its parts so far and its loop's state
    // (`paused_replies`), and each call waiting for a decision (`approval_requests`), so that any process, after
    // a restart of all of them, can continue it.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('paused_replies')
        .addColumn('reply_id', 'uuid', (column) => column.primaryKey())
        .addColumn('channel_id', 'uuid', (column) => column.notNull())
        .addColumn('agent_id', 'uuid', (column) => column.notNull())
        .addColumn('in_reply_to', 'uuid', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('parts', 'jsonb', (column) => column.notNull())
        .addColumn('progress', 'jsonb')
        .addColumn('expires_at', 'timestamptz', (column) => column.notNull())
        .addColumn('lease_until', 'timestamptz')
        .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createIndex('paused_replies_status_idx')
        .on('paused_replies')
        .columns(['status', 'expires_at'])
        .execute();
      await db.schema
        .createTable('approval_requests')
        .addColumn('reply_id', 'uuid', (column) =>
          column.notNull().references('paused_replies.reply_id').onDelete('cascade'),
        )
        .addColumn('tool_call_id', 'text', (column) => column.notNull())
        .addColumn('tool_name', 'text', (column) => column.notNull())
        .addColumn('decision', 'text')
        .addColumn('reason', 'text')
        .addColumn('decided_at', 'timestamptz')
        .addPrimaryKeyConstraint('approval_requests_pk', ['reply_id', 'tool_call_id'])
        .execute();
    },
  },
  '0015_idempotency_key_expiry': {
    // Idempotency keys are kept for a window (IDEMPOTENCY_KEY_TTL_MS) and removed by age after it, in batches
    // (the index). A key used again past its window posts a new message: its message id is drawn at each use
    // (`message_id`; null on older rows, whose message id is their `id`). The reply claimed for a key is held by
    // its process under a lease it renews (`reply_owner`, `reply_lease_until`): a retry takes over the reply of a
    // process that died mid-reply.
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('idempotency_keys')
        .addColumn('message_id', 'uuid')
        .addColumn('reply_owner', 'text')
        .addColumn('reply_lease_until', 'timestamptz')
        .execute();
      await db.schema
        .createIndex('idempotency_keys_created_idx')
        .on('idempotency_keys')
        .column('created_at')
        .execute();
    },
  },
  '0016_channels': {
    // Channels as a resource: name, type, topic, metadata, activity, participants (see channel-migration.ts).
    async up(db: Kysely<unknown>) {
      await createChannelColumns(db);
    },
  },
  '0017_agents_and_sessions': {
    // Agents created at run time (and stopped ones) and elizaOS sessions (see agent-session-migration.ts).
    async up(db: Kysely<unknown>) {
      await createAgentAndSessionTables(db);
    },
  },
  '0018_attachments': {
    // Files uploaded to channels, served by any process (see attachment-migration.ts).
    async up(db: Kysely<unknown>) {
      await createAttachmentTable(db);
    },
  },
  '0019_trace_context': {
    // The W3C trace context (`traceparent`, `tracestate`) of what paused a reply and of what enqueued a webhook
    // delivery, so a continuation or a delivery run later, by any process, joins the same trace. Null: none.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('paused_replies').addColumn('trace_context', 'jsonb').execute();
      await db.schema
        .alterTable('webhook_deliveries')
        .addColumn('trace_context', 'jsonb')
        .execute();
    },
  },
  '0020_message_trace_context': {
    // Each message keeps the trace context of what stored it, and the trigger hands it to its deliveries.
    async up(db: Kysely<unknown>) {
      await carryTraceContextToDeliveries(db);
    },
  },
  '0021_approval_started': {
    // When an approved call's handler started, written before it runs: a continuation taken over from a process
    // that died never runs a started call again (unless its action is idempotent). Null: not started.
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('approval_requests')
        .addColumn('started_at', 'timestamptz')
        .execute();
    },
  },
  '0022_receipts': {
    // Signed receipts of replies and tombstones of deleted ones, chained per agent and channel, and the agent
    // registrations that vouch for their keys (see receipts/receipt-tables.ts).
    async up(db: Kysely<unknown>) {
      await createReceiptTables(db);
    },
  },
  '0023_memories': {
    // Agents' memories with embeddings and full-text search, and each agent's embedding model (see
    // memory/memory-migration.ts).
    async up(db: Kysely<unknown>) {
      await createMemoryTables(db);
    },
  },
  '0024_channel_summaries': {
    // The running summary of each long channel's turns that fell out of the prompt window, per agent (see
    // memory/summary/summary-migration.ts).
    async up(db: Kysely<unknown>) {
      await createChannelSummaryTable(db);
    },
  },
  '0025_channel_members': {
    // Who may see each channel: its owner and the people added to it (see storage/channel-member-migration.ts).
    async up(db: Kysely<unknown>) {
      await createChannelMemberTable(db);
    },
  },
  '0028_message_author_index': {
    // The indexes of listByAuthor (runs) and of elizaOS's jobs listing (see storage/message-index-migration.ts).
    async up(db: Kysely<unknown>) {
      await createMessageAuthorIndexes(db);
    },
  },
  '0029_a2a_tasks': {
    // The A2A face's tasks, so that any process answers GetTask and CancelTask (see a2a/a2a-task-migration.ts).
    async up(db: Kysely<unknown>) {
      await createA2ATaskTable(db);
    },
  },
  '0030_audit_log': {
    // The append-only audit log of admin actions (see audit/audit-migration.ts).
    async up(db: Kysely<unknown>) {
      await createAuditLogTable(db);
    },
  },
  '0031_person_token_usage': {
    // Model tokens spent per person and day, for PERSON_DAILY_TOKENS (see guards/daily-token-budget.ts).
    async up(db: Kysely<unknown>) {
      await createTokenUsageTable(db);
    },
  },
};

/** Serves the migrations above to Kysely's Migrator. */
export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
