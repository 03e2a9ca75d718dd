import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written on behalf of one request or socket event carries besides its message. */
export interface LogFields {
  /** The HTTP request's id (`x-request-id`). */
  requestId?: string;
  /** The socket.io connection's id, for what a socket event started. */
  socketId?: string;
}

/**
 * What the running work carries across its awaits, and what a reply it starts re-enters when its turn comes:
 * the fields of its log lines (`log-context.ts`) and the signed-in person it is for (`person-scope.ts`).
 */
export interface WorkScope {
  readonly fields?: LogFields;
  readonly person?: string;
}

/**
 * One store for all of it: Node 20 copies every AsyncLocalStorage in use into each promise the process makes,
 * so each store more is paid by every await of every request (measured: a second one, for the person alone, was
 * a visible share of a signed-in person's reply).
 */
const scopes = new AsyncLocalStorage<WorkScope>();

/** The scope of the work running now, if any. */
export function currentScope(): WorkScope | undefined {
  return scopes.getStore();
}

/** Runs `work` in the running scope with `changes` made to it. */
export function withScope<T>(changes: WorkScope, work: () => T): T {
  const outer = scopes.getStore();
  return scopes.run(outer ? { ...outer, ...changes } : changes, work);
}

/**
 * Runs `work` in `scope` exactly (none: in no scope), whatever runs now: how a reply taken up later, in a
 * queue's turn that another request's work may have started, re-enters the scope of the request that asked for
 * it (its log fields, its person) and nothing of the other's.
 */
export function inScope<T>(scope: WorkScope | undefined, work: () => T): T {
  return scopes.run(scope ?? NO_SCOPE, work);
}

const NO_SCOPE: WorkScope = Object.freeze({});
