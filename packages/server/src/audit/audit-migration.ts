import { type ColumnType, type Generated, type Kysely, sql } from 'kysely';

/** The audit table's name. */
export const AUDIT_TABLE = 'audit_log';

/** Who did an audited action: the operator's token, a signed-in person, a plugin, or the server itself. */
export const AUDIT_ACTOR_KINDS = ['operator', 'person', 'plugin', 'system'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/**
 * The audit log (migration 0030): one row per admin action, appended and never changed. `seq` orders the rows
 * and is the cursor of `GET /api/audit`; `at` is the database's clock. A trigger refuses every UPDATE, DELETE and
 * TRUNCATE, so not even a bug in the server (or a plugin holding the database) can rewrite history: the only way
 * to prune is the database owner's, deliberately outside Parley (drop the trigger).
 */
export async function createAuditLogTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable(AUDIT_TABLE)
    .addColumn('seq', 'bigserial', (column) => column.primaryKey())
    .addColumn('at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addColumn('actor_kind', 'text', (column) =>
      column.notNull().check(sql`actor_kind in ('operator', 'person', 'plugin', 'system')`),
    )
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('target', 'text')
    .addColumn('detail', 'jsonb', (column) => column.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('request_id', 'text')
    .addColumn('trace_id', 'text')
    .execute();
  await db.schema
    .createIndex(`${AUDIT_TABLE}_action_idx`)
    .on(AUDIT_TABLE)
    .columns(['action', 'seq desc'])
    .execute();
  await db.schema
    .createIndex(`${AUDIT_TABLE}_actor_idx`)
    .on(AUDIT_TABLE)
    .columns(['actor_id', 'seq desc'])
    .execute();
  await db.schema
    .createIndex(`${AUDIT_TABLE}_target_idx`)
    .on(AUDIT_TABLE)
    .columns(['target', 'seq desc'])
    .execute();
  await sql`create function parley_audit_log_append_only() returns trigger
              language plpgsql as $$
              begin
                raise exception 'audit_log is append-only';
              end $$`.execute(db);
  await sql`create trigger audit_log_no_change before update or delete on audit_log
              for each row execute function parley_audit_log_append_only()`.execute(db);
  await sql`create trigger audit_log_no_truncate before truncate on audit_log
              for each statement execute function parley_audit_log_append_only()`.execute(db);
}

/** `audit_log`, as Kysely sees it: inserted and read, never updated. */
export interface AuditTables {
  audit_log: {
    seq: Generated<string>;
    at: ColumnType<Date, Date | string | undefined, never>;
    actor_kind: ColumnType<AuditActorKind, AuditActorKind, never>;
    actor_id: ColumnType<string | null, string | null | undefined, never>;
    actor_name: ColumnType<string | null, string | null | undefined, never>;
    action: ColumnType<string, string, never>;
    target: ColumnType<string | null, string | null | undefined, never>;
    detail: ColumnType<Record<string, unknown>, string | undefined, never>;
    request_id: ColumnType<string | null, string | null | undefined, never>;
    trace_id: ColumnType<string | null, string | null | undefined, never>;
  };
}
