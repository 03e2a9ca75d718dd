import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from './semantic-attributes';
import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryResult,
  TransactionSettings,
} from 'kysely';

/** The longest statement text put on a span (`db.query.text`); its parameters are never on it. */
const MAX_QUERY_TEXT = 2048;

/** What a statement may do after its `WITH` clauses. */
const MAIN_OPERATIONS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * The statement's operation (`SELECT`, `INSERT`…): its first word, or for `WITH …`, the first operation outside
 * its parentheses (the main statement after the common table expressions). Looks at the first
 * {@link MAX_QUERY_TEXT} characters only.
 */
export function operationOf(sql: string): string {
  const first = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase();
  if (first !== 'WITH') return first ?? 'QUERY';
  let depth = 0;
  const words = /[()]|'(?:[^']|'')*'|"(?:[^"]|"")*"|[A-Za-z]+/g;
  for (const [token] of sql.slice(0, MAX_QUERY_TEXT).matchAll(words)) {
    if (token === '(') depth += 1;
    else if (token === ')') depth -= 1;
    else if (depth === 0 && MAIN_OPERATIONS.has(token.toUpperCase())) return token.toUpperCase();
  }
  return 'WITH';
}

/**
 * A CLIENT span per statement (`{operation} postgresql`, with `db.system.name`, `db.operation.name` and the
 * statement's text, whose `$n` parameters stay out), only inside a trace: a statement run with no active span (a
 * sweep, a poll) makes none, so idle processes export nothing.
 */
async function traced<R>(
  tracer: Tracer,
  query: CompiledQuery,
  run: () => Promise<QueryResult<R>>,
): Promise<QueryResult<R>> {
  const active = context.active();
  if (!trace.getSpan(active)) return run();
  const operation = operationOf(query.sql);
  const span = tracer.startSpan(
    `${operation} postgresql`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system.name': 'postgresql',
        'db.operation.name': operation,
        'db.query.text': query.sql.slice(0, MAX_QUERY_TEXT),
      },
    },
    active,
  );
  try {
    const result = await context.with(trace.setSpan(active, span), run);
    if (result.numAffectedRows !== undefined) {
      span.setAttribute('db.response.affected_rows', Number(result.numAffectedRows));
    }
    return result;
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    span.setAttribute(ATTR_ERROR_TYPE, typeof code === 'string' ? code : 'error');
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/** A connection whose statements are traced; the driver is handed the original back. */
class TracedConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    readonly tracer: Tracer,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return traced(this.tracer, query, () => this.inner.executeQuery<R>(query));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

const innerOf = (connection: DatabaseConnection) =>
  connection instanceof TracedConnection ? connection.inner : connection;

/** The driver of {@link tracedDialect}: the dialect's own, its connections wrapped. */
class TracedDriver implements Driver {
  constructor(
    readonly inner: Driver,
    readonly tracer: Tracer,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new TracedConnection(await this.inner.acquireConnection(), this.tracer);
  }
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(innerOf(connection), settings);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(innerOf(connection));
  }
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(innerOf(connection));
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(innerOf(connection));
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * `dialect` with a span per statement run inside a trace (see {@link traced}). Only a server given a tracer
 * wraps its dialect: with tracing off the database runs as it is, at no cost.
 */
export function tracedDialect(dialect: Dialect, tracer: Tracer): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => withSavepoints(new TracedDriver(dialect.createDriver(), tracer)),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}

/** Passes the optional savepoint methods through when the inner driver has them. */
function withSavepoints(driver: TracedDriver): Driver {
  const { inner } = driver;
  const extra: Partial<Driver> = {};
  if (inner.savepoint) {
    extra.savepoint = (connection, name, compile) =>
      inner.savepoint!(innerOf(connection), name, compile);
  }
  if (inner.rollbackToSavepoint) {
    extra.rollbackToSavepoint = (connection, name, compile) =>
      inner.rollbackToSavepoint!(innerOf(connection), name, compile);
  }
  if (inner.releaseSavepoint) {
    extra.releaseSavepoint = (connection, name, compile) =>
      inner.releaseSavepoint!(innerOf(connection), name, compile);
  }
  return Object.assign(driver, extra);
}
