import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from './schema';
import { storageCall } from './to-storage-error';

/** An agent row as the agent manager reads it. */
export interface ManagedAgentRow {
  id: string;
  /** The character of an agent created at run time; null for a configured agent (only its state is kept). */
  character: Record<string, unknown> | null;
  enabled: boolean;
  /** Changes with every change of the row, a row removed and made again included. */
  stamp: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The version of a row: enough to tell whether a process's copy is current. */
export interface ManagedAgentVersion {
  id: string;
  stamp: string;
}

function stampOf(row: { created_at: Date; version: number }): string {
  return `${row.created_at.getTime()}.${row.version}`;
}

/**
 * `managed_agents`: agents created at run time and the state of configured ones, shared by every process of
 * the database. Reads are bounded by the caller's maximum.
 */
export class ManagedAgentStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #sync: () => Promise<void>;

  constructor(db: Kysely<DatabaseSchema>, sync: () => Promise<void> = () => Promise.resolve()) {
    this.#db = db;
    this.#sync = sync;
  }

  /** Every row's id and version, at most `limit`. */
  versions(limit: number): Promise<ManagedAgentVersion[]> {
    return storageCall('read agents', async () => {
      const rows = await this.#db
        .selectFrom('managed_agents')
        .select(['id', 'version', 'created_at'])
        // The state of configured agents first: a bound lowered below what is stored never hides a stop.
        .orderBy(sql`character IS NULL`, 'desc')
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: row.id, stamp: stampOf(row) }));
    });
  }

  /** The rows with these ids. */
  read(ids: readonly string[]): Promise<ManagedAgentRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return storageCall('read agents', async () => {
      const rows = await this.#db
        .selectFrom('managed_agents')
        .selectAll()
        .where('id', 'in', ids)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        character: row.character,
        enabled: row.enabled,
        stamp: stampOf(row),
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      }));
    });
  }

  /**
   * Stores a new agent made at run time unless `max` are stored already: the count and the insert run in one
   * transaction under a transaction-scoped advisory lock, so creates released together on any number of
   * processes pass the bound one at a time and never past it. `full` when the bound is reached, `taken` when
   * an agent with this id exists already.
   */
  insertWithin(
    id: string,
    character: Record<string, unknown>,
    max: number,
  ): Promise<'stored' | 'full' | 'taken'> {
    return storageCall('store an agent', async () => {
      const outcome = await this.#db.transaction().execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtextextended('parley.managed_agents.bound', 0))`.execute(
          trx,
        );
        const taken = await trx
          .selectFrom('managed_agents')
          .select('id')
          .where('id', '=', id)
          .executeTakeFirst();
        if (taken) return 'taken' as const;
        const { n } = await trx
          .selectFrom('managed_agents')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('character', 'is not', null)
          .executeTakeFirstOrThrow();
        if (Number(n) >= max) return 'full' as const;
        await trx
          .insertInto('managed_agents')
          .values({ id, character: JSON.stringify(character), enabled: true })
          .execute();
        return 'stored' as const;
      });
      if (outcome === 'stored') await this.#sync();
      return outcome;
    });
  }

  /** Replaces an agent's character; false when it is not stored. */
  updateCharacter(id: string, character: Record<string, unknown>): Promise<boolean> {
    return this.#update(id, { character: JSON.stringify(character) });
  }

  /**
   * Sets whether an agent runs. A configured agent has no row until first stopped: one is made for it
   * (`character` null).
   */
  setEnabled(id: string, enabled: boolean): Promise<void> {
    return storageCall('store an agent', async () => {
      await this.#db
        .insertInto('managed_agents')
        .values({ id, character: null, enabled })
        .onConflict((conflict) =>
          conflict.column('id').doUpdateSet({
            enabled,
            updated_at: new Date(),
            version: sql<number>`managed_agents.version + 1`,
          }),
        )
        .execute();
      await this.#sync();
    });
  }

  /** Removes an agent's row; false when there was none. */
  delete(id: string): Promise<boolean> {
    return storageCall('delete an agent', async () => {
      const result = await this.#db
        .deleteFrom('managed_agents')
        .where('id', '=', id)
        .executeTakeFirst();
      await this.#sync();
      return result.numDeletedRows > 0n;
    });
  }

  #update(id: string, values: { character: string }): Promise<boolean> {
    return storageCall('store an agent', async () => {
      const result = await this.#db
        .updateTable('managed_agents')
        .set({ ...values, updated_at: new Date(), version: sql<number>`version + 1` })
        .where('id', '=', id)
        .executeTakeFirst();
      await this.#sync();
      return result.numUpdatedRows > 0n;
    });
  }
}
