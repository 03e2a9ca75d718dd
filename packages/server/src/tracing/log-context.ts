import type { Logger } from 'pino';
import { traceFields } from './trace-context';
import { currentScope, type LogFields, withScope } from './work-scope';

export type { LogFields } from './work-scope';

/** Marks a logger (and its children, which inherit it) that carries the fields as its own bindings. */
const BOUND = Symbol('parley.logFieldsBound');

/**
 * A child of `logger` bound to `added` (lines show them once, whatever logger wrote them), for the request's
 * own logger: a logger without the server's mixin (a plugin's, a test's) still shows them.
 */
export function bindLogFields(logger: Logger, added: LogFields): Logger {
  const child = logger.child(added);
  (child as unknown as Record<symbol, boolean>)[BOUND] = true;
  return child;
}

/**
 * Runs `work` with `added` on every log line written while it runs, and by what it starts (a reply queued
 * behind others re-enters the fields its request had: {@link currentLogFields}).
 */
export function withLogFields<T>(added: LogFields | undefined, work: () => T): T {
  if (!added) return work();
  const outer = currentScope()?.fields;
  return withScope({ fields: outer ? { ...outer, ...added } : added }, work);
}

/** The fields of the request or socket event running now, if any. */
export function currentLogFields(): LogFields | undefined {
  return currentScope()?.fields;
}

/**
 * The pino `mixin` of the server's logger: the request id or socket id of what is running, and the trace and
 * span ids of the active span (none with tracing off).
 */
export function logMixin(
  _merged?: object,
  _level?: number,
  logger?: object,
): LogFields & { trace_id?: string; span_id?: string } {
  const current = currentScope()?.fields;
  const trace = traceFields();
  // A logger bound to them already writes them (as its bindings): not twice.
  if (!current || (logger as Record<symbol, unknown> | undefined)?.[BOUND]) return trace;
  return { ...current, ...trace };
}
