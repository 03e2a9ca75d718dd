import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../storage/schema';
import { storageCall } from '../storage/to-storage-error';
import type { AuditActorKind } from './audit-migration';

/** One audit row as the API shows it. */
export interface AuditEntry {
  seq: number;
  at: string;
  actor: { kind: AuditActorKind; id: string | null; name: string | null };
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  requestId: string | null;
  traceId: string | null;
}

/** What {@link AuditStore.append} writes (the database gives `seq` and `at`). */
export type NewAuditEntry = Omit<AuditEntry, 'seq' | 'at'>;

/** A page's filters: newest first, below `before`. */
export interface AuditQuery {
  before?: number;
  limit: number;
  action?: string;
  /** An actor kind (`operator`, `person`, `plugin`, `system`) or an actor's entity id. */
  actor?: string;
  target?: string;
  since?: Date;
}

const ACTOR_KINDS: ReadonlySet<string> = new Set(['operator', 'person', 'plugin', 'system']);

/**
 * The audit table, append-only: this class offers `append` and `list` and nothing else, and the table's trigger
 * refuses UPDATE, DELETE and TRUNCATE from anyone (see audit-migration.ts).
 */
export class AuditStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #sync: () => Promise<void>;

  constructor(db: Kysely<DatabaseSchema>, sync: () => Promise<void> = () => Promise.resolve()) {
    this.#db = db;
    this.#sync = sync;
  }

  /** Appends one row (durable before it resolves) and returns its `seq`. */
  async append(entry: NewAuditEntry): Promise<number> {
    const row = await storageCall('audit entry', () =>
      this.#db
        .insertInto('audit_log')
        .values({
          actor_kind: entry.actor.kind,
          actor_id: entry.actor.id,
          actor_name: entry.actor.name,
          action: entry.action,
          target: entry.target,
          detail: JSON.stringify(entry.detail),
          request_id: entry.requestId,
          trace_id: entry.traceId,
        })
        .returning('seq')
        .executeTakeFirstOrThrow(),
    );
    await this.#sync();
    return Number(row.seq);
  }

  /** One page, newest first (by `seq`, so rows of the same instant keep one order across pages). */
  async list(query: AuditQuery): Promise<AuditEntry[]> {
    let select = this.#db.selectFrom('audit_log').selectAll();
    if (query.before !== undefined) select = select.where('seq', '<', String(query.before));
    if (query.action !== undefined) select = select.where('action', '=', query.action);
    if (query.actor !== undefined) {
      select = ACTOR_KINDS.has(query.actor)
        ? select.where('actor_kind', '=', query.actor as AuditActorKind)
        : select.where('actor_id', '=', query.actor);
    }
    if (query.target !== undefined) select = select.where('target', '=', query.target);
    if (query.since !== undefined) select = select.where('at', '>=', query.since);
    const rows = await storageCall('audit entries', () =>
      select.orderBy('seq', 'desc').limit(query.limit).execute(),
    );
    return rows.map((row) => ({
      seq: Number(row.seq),
      at: new Date(row.at).toISOString(),
      actor: { kind: row.actor_kind, id: row.actor_id, name: row.actor_name },
      action: row.action,
      target: row.target,
      detail: row.detail,
      requestId: row.request_id,
      traceId: row.trace_id,
    }));
  }
}
