import { sql, type Kysely } from 'kysely';

/**
 * Creates `channel_summaries` (see summary-tables.ts): removed with its channel. A summary whose `covered_until`
 * message is gone (the history was cleared) is ignored and rebuilt by its reader, so no trigger is needed here.
 */
export async function createChannelSummaryTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('channel_summaries')
    .addColumn('channel_id', 'uuid', (column) =>
      column.notNull().references('channels.id').onDelete('cascade'),
    )
    .addColumn('agent_id', 'uuid', (column) => column.notNull())
    .addColumn('summary', 'text', (column) => column.notNull())
    .addColumn('covered_until', 'uuid', (column) => column.notNull())
    .addColumn('covered_count', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('channel_summaries_pk', ['channel_id', 'agent_id'])
    .execute();
}
