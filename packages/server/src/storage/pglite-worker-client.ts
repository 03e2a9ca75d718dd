import { Worker } from 'node:worker_threads';

/** What the Kysely driver needs of an embedded database. */
export interface PGliteQueryable {
  query<R>(sql: string, params: readonly unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/**
 * The main thread's side of the PGlite worker (pglite-worker.js): queries, WAL syncs and close become
 * messages, answered in order of arrival by PGlite on its own thread. Database errors come back as Errors
 * with their PostgreSQL `code`, so callers can tell a unique violation from a failure.
 */
export class PGliteWorkerClient implements PGliteQueryable {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #gone: Error | undefined;

  /**
   * @param dataDir the database folder, or undefined for a database in memory.
   * @param options.pgvector load PGlite's build of pgvector.
   */
  constructor(dataDir: string | undefined, options: { pgvector?: boolean } = {}) {
    this.#worker = new Worker(new URL('./pglite-worker.js', import.meta.url), {
      workerData: { dataDir: dataDir ?? null, pgvector: options.pgvector === true },
      // The thread's objects are short-lived query messages: a young generation capped at 4 MB (V8's default
      // grows to 48 MB under load and stays) kept 25 MB off the resident size after load, measured.
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    this.#worker.on('message', (message: { id: number; result?: unknown; error?: Error }) => {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error)
        pending.reject(Object.assign(new Error(message.error.message), message.error));
      else pending.resolve(message.result);
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) =>
      this.#fail(new Error(`the database thread exited (${code})`)),
    );
  }

  query<R>(sql: string, params: readonly unknown[]): Promise<{ rows: R[]; affectedRows?: number }> {
    return this.#call({ type: 'query', sql, params }) as Promise<{
      rows: R[];
      affectedRows?: number;
    }>;
  }

  /** Runs a `COPY … FROM '/dev/blob'` with `data` as its input; `data`'s buffer moves to the database thread. */
  async copyIn(sql: string, data: Uint8Array): Promise<void> {
    const own =
      data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : data.slice();
    await this.#call({ type: 'copy', sql, data: own }, [own.buffer as ArrayBuffer]);
  }

  /** Makes every commit so far durable (see the worker's WAL sync). */
  async sync(): Promise<void> {
    await this.#call({ type: 'sync' });
  }

  /** Closes the database and ends its thread. */
  async close(): Promise<void> {
    if (this.#gone) return;
    await this.#call({ type: 'close' });
    this.#gone = new Error('the database is closed');
    await this.#worker.terminate();
  }

  #call(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...message, id }, transfer);
    });
  }

  #fail(error: Error) {
    this.#gone ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
