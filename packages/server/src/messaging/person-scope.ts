import { currentScope, withScope } from '../tracing/work-scope';

/**
 * The signed-in person a request or socket event is for (their entity id), while it is handled: set by the
 * identity guards (HTTP) and the socket protocol around the work they run for a person who is not an admin,
 * read by the reply admission to bound each person's replies. Unset for the operator, admins, and a server with
 * no identities (an `entityId` there is a claim, not a person, so it bounds nothing). Kept in the running work's
 * scope (`tracing/work-scope.ts`), beside its log fields.
 */

/** Runs `work` as done for the person `entityId` (none: as no one's). */
export function asPerson<T>(entityId: string | undefined, work: () => T): T {
  return entityId === undefined ? work() : withScope({ person: entityId }, work);
}

/** The person the running work is for, if any. */
export function currentPerson(): string | undefined {
  return currentScope()?.person;
}
