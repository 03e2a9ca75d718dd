import { type Kysely } from 'kysely';

/** The A2A tasks' table: the one `@a2a-js/sdk`'s `DatabaseTaskStore` reads and writes, by its name here. */
export const A2A_TASK_TABLE = 'a2a_tasks';

/**
 * The A2A tasks (migration 0029): the columns of the SDK's own task table (its `a2a-db` tool creates the same, with
 * `varchar` lengths that a context id from a client, which need not be a UUID, could pass; `text` here), so the
 * SDK's `DatabaseTaskStore` keeps Parley's tasks in Parley's database, PGlite or PostgreSQL. `owner` is the agent
 * and the person (see a2a-routes.ts), so a task is only ever found by whoever created it, at its agent.
 */
export async function createA2ATaskTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable(A2A_TASK_TABLE)
    .addColumn('tenant', 'text', (column) => column.notNull())
    .addColumn('owner', 'text', (column) => column.notNull())
    .addColumn('id', 'text', (column) => column.notNull())
    .addColumn('context_id', 'text', (column) => column.notNull())
    .addColumn('status_last_updated', 'bigint', (column) => column.notNull())
    .addColumn('status_state', 'text')
    .addColumn('status', 'text')
    .addColumn('artifacts', 'text')
    .addColumn('history', 'text')
    .addColumn('metadata', 'text')
    .addColumn('protocol_version', 'text')
    .addPrimaryKeyConstraint(`${A2A_TASK_TABLE}_pkey`, ['tenant', 'owner', 'id'])
    .execute();
  await db.schema
    .createIndex(`${A2A_TASK_TABLE}_scope_updated_idx`)
    .on(A2A_TASK_TABLE)
    .columns(['tenant', 'owner', 'status_last_updated', 'id'])
    .execute();
  await db.schema
    .createIndex(`${A2A_TASK_TABLE}_scope_context_updated_idx`)
    .on(A2A_TASK_TABLE)
    .columns(['tenant', 'owner', 'context_id', 'status_last_updated', 'id'])
    .execute();
}
