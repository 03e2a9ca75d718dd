import { AsyncLocalStorage } from 'node:async_hooks';
import { type Identity, OPERATOR } from '../identity/identity';
import type { AuditActorKind } from './audit-migration';

/**
 * Who is acting, for the audit: set around each HTTP request (`auditContext` in audit-middleware.ts) and each
 * socket event that decides something, so that code deep below a route (the one `decide` of approvals, which
 * REST, the socket, the UI chat and A2A all reach) records the caller without every layer passing it on.
 * `identity` is read when the action is recorded, after the identity guards have run.
 */
export interface AuditScope {
  /** The caller's identity; undefined means no auth is configured: the operator, as everywhere else. */
  identity: () => Identity | undefined;
  requestId?: () => string | undefined;
}

const scopes = new AsyncLocalStorage<AuditScope>();

/** Runs `fn` with `scope` as the audit's caller. */
export function withAuditScope<T>(scope: AuditScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** The audit's caller now: undefined outside any request or socket event (the server itself: `system`). */
export function currentAuditScope(): AuditScope | undefined {
  return scopes.getStore();
}

/** The audit scope of a socket's event: the identity its handshake resolved (none: no auth, the operator). */
export function socketAuditScope(socket: { data: unknown }): AuditScope {
  // Held weakly, as a request's context is (audit-middleware.ts): a reply started by the event outlives it.
  const held = new WeakRef(socket);
  return {
    identity: () => (held.deref()?.data as { identity?: Identity } | undefined)?.identity,
  };
}

/** Who an audit row names. */
export interface AuditActor {
  kind: AuditActorKind;
  /** The person's entity id (for the operator: the operator's fixed entity id); null for the system. */
  id: string | null;
  name: string | null;
}

/** The operator's token (or no auth at all) is `operator`; any identity from a token a provider signed is a person. */
export function actorOf(identity: Identity | undefined): AuditActor {
  if (
    identity === undefined ||
    identity === OPERATOR ||
    (identity.kind === 'admin' && identity.subject === 'operator' && identity.issuer === undefined)
  ) {
    return { kind: 'operator', id: identity?.entityId ?? null, name: 'operator' };
  }
  return { kind: 'person', id: identity.entityId, name: identity.name ?? null };
}
