// @ts-check
/**
 * Named prepared statements for PGlite, which has none of its own: `pglite.query` parses, describes, plans and
 * runs every statement anew, in six calls into the WebAssembly. A chat server sends the same few dozen
 * statements all day, so the statements seen twice are prepared once under a name and then only bound and run:
 * one call, no parse and, after PostgreSQL's first five runs, no planning. Measured on this machine: 0.60 to
 * 0.15 ms for a post's membership statement, 0.20 to 0.07 ms for a select by key (docs/decisions.md, "Prepared
 * statements on the embedded database"). postgres.js and node-postgres's named queries do the same on a server.
 *
 * The answers are PGlite's own: the same type serializers and parsers, the same result shape, the same errors.
 *
 * Plain JavaScript, as the worker that imports it (pglite-worker.js).
 */
import { Buffer } from 'node:buffer';
import { parse, protocol } from '@electric-sql/pglite';

const { serialize } = protocol;

/** Statements that are prepared: those that read or write rows, never transaction control or DDL. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

/** PostgreSQL's refusal to run a prepared statement whose table changed shape since it was prepared. */
const RESULT_TYPE_CHANGED = /cached plan must not change result type/;

/**
 * @typedef {{ rows: unknown[], affectedRows?: number }} QueryResult
 * @typedef {{ name: string, types: number[], rowDescription: unknown }} Prepared
 * @typedef {import('@electric-sql/pglite').PGlite & {
 *   _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>,
 *   serializers: Record<number, (value: unknown) => string>,
 *   parsers: Record<number, (value: string, typeId?: number) => unknown>,
 * }} PGliteInternals
 */

/**
 * A `query(sql, params)` with PGlite's answers that prepares what it sees repeated.
 * @param {import('@electric-sql/pglite').PGlite} database
 * @param {{ maxPrepared?: number, maxSeen?: number }} [limits] statements kept prepared (least recently used
 *   ones are closed), and statement texts counted while not yet prepared.
 */
export function preparedQueries(database, { maxPrepared = 200, maxSeen = 2_000 } = {}) {
  const pglite = /** @type {PGliteInternals} */ (database);
  /** @type {Map<string, Prepared>} in least recently used order */
  const prepared = new Map();
  /** @type {Set<string>} texts seen once */
  const seen = new Set();
  let nextName = 0;

  /**
   * Runs protocol messages joined into one buffer (one call into the database) and ending with a sync; throws the
   * database's error, if any, once all ran.
   */
  const run = (/** @type {Uint8Array} */ message) =>
    pglite.execProtocolStream(message, { syncToFs: false });

  /** @param {string} sql @returns {Promise<Prepared>} */
  async function prepare(sql) {
    const name = `parley_${nextName++}`;
    const messages = await run(
      Buffer.concat([
        serialize.parse({ name, text: sql }),
        serialize.describe({ type: 'S', name }),
        serialize.sync(),
      ]),
    );
    const rowDescription = messages.find((message) => message.name === 'rowDescription');
    const statement = {
      name,
      types: parse.parseDescribeStatementResults(messages),
      rowDescription,
    };
    prepared.set(sql, statement);
    if (prepared.size > maxPrepared) {
      const [oldest, { name: closed }] = /** @type {[string, Prepared]} */ (
        prepared.entries().next().value
      );
      prepared.delete(oldest);
      await run(Buffer.concat([serialize.close({ type: 'S', name: closed }), serialize.sync()]));
    }
    return statement;
  }

  /** @param {Prepared} statement @param {readonly unknown[]} params @returns {Promise<QueryResult>} */
  async function execute(statement, params) {
    const values = params.map((param, index) => {
      if (param === null || param === undefined) return null;
      const serializer = pglite.serializers[/** @type {number} */ (statement.types[index])];
      // As PGlite does for a type it has no serializer for.
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the same call as PGlite's own query
      return serializer ? serializer(param) : String(param);
    });
    const messages = await run(
      Buffer.concat([
        serialize.bind({ statement: statement.name, values }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    const all = statement.rowDescription ? [statement.rowDescription, ...messages] : messages;
    const [result] = parse.parseResults(
      /** @type {Parameters<typeof parse.parseResults>[0]} */ (all),
      pglite.parsers,
    );
    await pglite.syncToFs();
    return { rows: result?.rows ?? [], affectedRows: result?.affectedRows };
  }

  /** @param {string} sql @param {readonly unknown[]} params */
  async function runPrepared(sql, params) {
    let statement = prepared.get(sql);
    if (statement) {
      // Most recently used last.
      prepared.delete(sql);
      prepared.set(sql, statement);
    } else {
      statement = await prepare(sql);
    }
    return execute(statement, params);
  }

  /**
   * @param {string} sql
   * @param {readonly unknown[]} [params]
   * @returns {Promise<QueryResult>}
   */
  return async function query(sql, params = []) {
    if (!prepared.has(sql)) {
      if (!PREPARABLE.test(sql) || !seen.has(sql)) {
        if (PREPARABLE.test(sql)) {
          if (seen.size >= maxSeen) seen.clear();
          seen.add(sql);
        }
        const result = await pglite.query(sql, /** @type {unknown[]} */ (params));
        return { rows: result.rows, affectedRows: result.affectedRows };
      }
      seen.delete(sql);
    }
    try {
      return await pglite._runExclusiveQuery(() => runPrepared(sql, params));
    } catch (error) {
      if (!RESULT_TYPE_CHANGED.test(String(/** @type {Error} */ (error).message))) throw error;
      // The table changed shape under the statement: forget it and run the text as PGlite does.
      const stale = prepared.get(sql);
      prepared.delete(sql);
      if (stale) {
        await pglite._runExclusiveQuery(() =>
          run(Buffer.concat([serialize.close({ type: 'S', name: stale.name }), serialize.sync()])),
        );
      }
      const result = await pglite.query(sql, /** @type {unknown[]} */ (params));
      return { rows: result.rows, affectedRows: result.affectedRows };
    }
  };
}
