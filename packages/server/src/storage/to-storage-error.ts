import { findJsonProblem, isStorableDate, ParleyError, unstorableTextReason } from '@parley/core';

/** `details.reason` of the 503 a database outage answers with, so clients and monitors can tell it apart. */
export const DATABASE_UNAVAILABLE = 'DATABASE_UNAVAILABLE';

/** Node socket errors that mean the database cannot be reached (or went away mid-query). */
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** The message of a wait on the database that Parley itself cut at the query deadline (a write batch, a turn). */
export const DEADLINE_MESSAGE = 'The database did not answer within its deadline';

/** pg's own messages for a connection that failed or ended (it sets no code on them), and Parley's deadline's. */
const CONNECTION_MESSAGES = new RegExp(
  [
    'Connection terminated',
    'connection timeout',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error',
    'the database thread exited',
    'Cannot use a pool after calling end',
    'Query read timeout',
    DEADLINE_MESSAGE,
  ].join('|'),
  'i',
);

function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * Whether an error means the database cannot be reached: a refused, reset or timed-out connection or query, or
 * PostgreSQL shutting down, starting up or out of connections (SQLSTATE classes 08, 53, 57P), or cancelling a
 * statement at its deadline (57014).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CONNECTION_ERRNOS.has(code)) return true;
  const state = sqlStateOf(error);
  // 57014: a statement cancelled by its deadline (statement_timeout): the database is too slow to answer.
  if (state && (/^(08|53|57P)/.test(state) || state === '57014')) {
    return true;
  }
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return error instanceof Error && CONNECTION_MESSAGES.test(error.message);
}

/**
 * Whether an error is PostgreSQL refusing the data itself (SQLSTATE class 22, data exception: bad encoding,
 * NUL, out-of-range dates or numbers, malformed JSON; or class 23, integrity: a violated constraint; or 54,
 * a program limit such as nesting too deep). Such an error is the caller's input, never the server's fault.
 */
export function isDataError(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state !== undefined && /^(22|23|54)/.test(state);
}

/**
 * Turns a storage failure into the error a client should see: the database refusing the data is a 400
 * `BAD_REQUEST` (whatever the schemas let through), a database that cannot be reached is a 503 `UNAVAILABLE`
 * with `details.reason` {@link DATABASE_UNAVAILABLE}. Anything else (and a ParleyError) passes through
 * unchanged, so the caller's own handling (a unique violation, say) still sees it. The cause is kept for logs;
 * no database text reaches the client.
 *
 * @param what the thing being stored or read, for the message (`message`, `scheduled message`).
 */
export function toStorageError(error: unknown, what: string): unknown {
  if (ParleyError.isInstance(error)) return error;
  if (isDatabaseUnavailable(error)) {
    return new ParleyError('UNAVAILABLE', 'The database is unavailable; retry later', {
      cause: error,
      details: { reason: DATABASE_UNAVAILABLE },
    });
  }
  if (isDataError(error) && sqlStateOf(error) !== '23505') {
    return new ParleyError('BAD_REQUEST', `The ${what} holds data that cannot be stored`, {
      cause: error,
    });
  }
  return error;
}

/**
 * Runs a storage operation and rethrows its failure through {@link toStorageError}.
 *
 * @example
 * const rows = await storageCall('message', () => db.selectFrom('messages').selectAll().execute());
 */
export async function storageCall<T>(what: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toStorageError(error, what);
  }
}

/** The fields of a row to check before it reaches the database, by kind. */
export interface StorableFields {
  texts?: Record<string, string | null | undefined>;
  json?: Record<string, unknown>;
  dates?: Record<string, Date>;
}

/**
 * Throws a `BAD_REQUEST` naming the field when a row holds what PostgreSQL or JSON cannot take: the last line of
 * defence behind the schemas, for callers that bypass them (plugins, scheduled messages). It runs before the
 * row is serialised, because `JSON.stringify` itself overflows the stack on very deep values.
 */
export function assertStorable(fields: StorableFields): void {
  for (const [name, value] of Object.entries(fields.texts ?? {})) {
    const reason = typeof value === 'string' ? unstorableTextReason(value) : undefined;
    if (reason) throw new ParleyError('BAD_REQUEST', `${name} ${reason}`);
  }
  for (const [name, value] of Object.entries(fields.json ?? {})) {
    const problem = findJsonProblem(value);
    if (problem) {
      throw new ParleyError(
        'BAD_REQUEST',
        `${[name, ...problem.path].join('.')} ${problem.message}`,
      );
    }
  }
  for (const [name, value] of Object.entries(fields.dates ?? {})) {
    if (!isStorableDate(value)) {
      throw new ParleyError('BAD_REQUEST', `${name} must be a date in the years 1 to 9999`);
    }
  }
}
