import { type Kysely, sql } from 'kysely';

/**
 * Agents as a resource and elizaOS sessions (migration 0017).
 *
 * `managed_agents`: one row per agent created through `POST /api/agents` (its validated character, secrets
 * included: the database is the server's own, like a character file), and one per agent of the server's
 * configuration whose state was changed (stopped), with a null character. `enabled` false: stopped. Every
 * process sharing the database reads it (`agents/agent-sync.ts`); `updated_at` tells it what changed.
 *
 * `sessions`: an elizaOS session, a user and an agent talking in their own channel.
 */
export async function createAgentAndSessionTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('managed_agents')
    .addColumn('id', 'uuid', (column) => column.primaryKey())
    .addColumn('character', 'jsonb')
    .addColumn('enabled', 'boolean', (column) => column.notNull().defaultTo(true))
    .addColumn('version', 'integer', (column) => column.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'uuid', (column) => column.primaryKey())
    .addColumn('agent_id', 'uuid', (column) => column.notNull())
    .addColumn('user_id', 'uuid', (column) => column.notNull())
    .addColumn('channel_id', 'uuid', (column) => column.notNull())
    .addColumn('metadata', 'jsonb', (column) => column.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn('last_activity', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('sessions_activity_idx')
    .on('sessions')
    .columns(['last_activity desc', 'id desc'])
    .execute();
}
