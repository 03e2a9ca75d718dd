import type { Kysely } from 'kysely';

/** Model tokens spent per person and day (UTC), as Kysely sees the table (migration 0031). */
export interface TokenUsageTables {
  person_token_usage: {
    entity_id: string;
    /** `YYYY-MM-DD`, UTC. */
    day: string;
    tokens: number | string | bigint;
  };
}

/** The table of model tokens spent per person and day (migration 0031). */
export async function createTokenUsageTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('person_token_usage')
    .addColumn('entity_id', 'text', (column) => column.notNull())
    .addColumn('day', 'text', (column) => column.notNull())
    .addColumn('tokens', 'bigint', (column) => column.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('person_token_usage_pk', ['entity_id', 'day'])
    .execute();
}
