import { ParleyError } from '@parley/core';
import { type Identity, isAdmin } from './identity';

/** The realm every `WWW-Authenticate: Bearer` challenge names. */
export const AUTH_REALM = 'parley';

/**
 * The one module routes ask about who may do what (channels: `channel-access.ts`, which uses the same
 * `Identity`). An absent identity is an admin: that is every request when no auth is configured (today's
 * behaviour).
 */

/** FORBIDDEN unless `identity` is an admin. */
export function requireAdmin(identity: Identity | undefined, what = 'This'): void {
  if (!isAdmin(identity)) throw new ParleyError('FORBIDDEN', `${what} is for administrators only`);
}

/** FORBIDDEN unless `identity` has `role` (an admin has every role). */
export function requireRole(identity: Identity | undefined, role: string): void {
  if (isAdmin(identity)) return;
  if (!identity!.roles.has(role)) throw new ParleyError('FORBIDDEN', `This needs the role ${role}`);
}

/**
 * The entity a request acts as: the identity's own; a claimed `entityId`/`author_id` naming someone else is
 * FORBIDDEN (an admin may name anyone, as today).
 */
export function assertSameEntity(
  identity: Identity | undefined,
  claimed: string | undefined,
): string | undefined {
  if (isAdmin(identity)) return claimed;
  if (claimed !== undefined && claimed.toLowerCase() !== identity!.entityId) {
    throw new ParleyError(
      'FORBIDDEN',
      'You may act only as yourself: the entity id names someone else',
    );
  }
  return identity!.entityId;
}

/** The `WWW-Authenticate` value of a 401 (RFC 6750), naming the protected-resource metadata when known. */
export function bearerChallenge(
  options: { error?: string; resourceMetadata?: string } = {},
): string {
  const parts = [`realm="${AUTH_REALM}"`];
  if (options.error) parts.push(`error="${options.error}"`);
  if (options.resourceMetadata) parts.push(`resource_metadata="${options.resourceMetadata}"`);
  return `Bearer ${parts.join(', ')}`;
}
