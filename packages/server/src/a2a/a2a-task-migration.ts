import { type ColumnType, type Kysely, sql } from 'kysely';

/**
 * The A2A tasks (migration 0029): one row per task, the SDK's `Task` as JSON (bounded by the store before it is
 * written) beside the columns the server asks by: the agent, the context, the person who created it (`owner_id`,
 * null when no identity named the caller) and the reply it follows (`reply_id`, so that any process cancels it).
 * No foreign key to `agents` or `channels`: a task outlives neither by design, and a deleted agent's tasks are
 * only unreachable (its endpoint answers 404).
 */
export async function createA2ATaskTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('a2a_tasks')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('agent_id', 'uuid', (column) => column.notNull())
    .addColumn('context_id', 'text', (column) => column.notNull())
    .addColumn('owner_id', 'text')
    .addColumn('state', 'text', (column) => column.notNull())
    .addColumn('reply_id', 'uuid')
    .addColumn('task', 'jsonb', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('a2a_tasks_agent_context_idx')
    .on('a2a_tasks')
    .columns(['agent_id', 'context_id', 'updated_at'])
    .execute();
  await db.schema
    .createIndex('a2a_tasks_agent_owner_idx')
    .on('a2a_tasks')
    .columns(['agent_id', 'owner_id', 'updated_at'])
    .execute();
}

/** `a2a_tasks`, as Kysely sees it. */
export interface A2ATaskTables {
  a2a_tasks: {
    id: string;
    agent_id: string;
    context_id: string;
    owner_id: string | null;
    state: string;
    reply_id: string | null;
    task: ColumnType<unknown, string, string>;
    created_at: ColumnType<Date, Date | string | undefined, never>;
    updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  };
}
