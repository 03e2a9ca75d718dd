import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import type { PGliteQueryable } from './pglite-worker-client';

/**
 * PGlite has one connection. Kysely runs a transaction on the connection it acquired, so the connection is
 * handed out to one user at a time; queries queue behind it in order.
 */
class PGliteDriver implements Driver {
  readonly #connection: DatabaseConnection;
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(readonly pglite: PGliteQueryable) {
    this.#connection = {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        const result = await pglite.query<R>(query.sql, query.parameters);
        return {
          rows: result.rows,
          numAffectedRows:
            result.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
        };
      },
      streamQuery: () => {
        throw new Error('PGlite does not support streaming queries');
      },
    };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery({ sql: 'begin', parameters: [] } as unknown as CompiledQuery);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery({ sql: 'commit', parameters: [] } as unknown as CompiledQuery);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery({ sql: 'rollback', parameters: [] } as unknown as CompiledQuery);
  }

  releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
    return Promise.resolve();
  }

  async destroy(): Promise<void> {
    // The caller closes the database itself; waiting here lets queries under way finish first.
    await this.#tail;
  }
}

/** A Kysely dialect over an embedded PGlite database. */
export function createPGliteDialect(pglite: PGliteQueryable): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PGliteDriver(pglite),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  };
}
