import { uuidV5 } from '@parley/plugin-sdk';

/**
 * Who is asking: the operator (`admin`), a person a trusted identity provider vouched for (`user`), or a
 * visitor the server itself issued a guest token to (`guest`). Routes never read tokens: they read this.
 */
export interface Identity {
  kind: 'admin' | 'user' | 'guest';
  /** The entity this identity speaks as (a UUID; for a user, derived from issuer and subject). */
  entityId: string;
  name?: string;
  /** Role names, already mapped to Parley's (`admin`, `user`, `approver`). */
  roles: ReadonlySet<string>;
  /** The token's `sub` (the operator: `operator`). */
  subject: string;
  /** The token's `iss`, when it came from one. */
  issuer?: string;
}

/** Namespace of entity ids derived from (issuer, subject). Fixed forever: changing it changes every person's id. */
export const IDENTITY_NAMESPACE = '9b0e3c1a-5d2f-5e47-8a6b-1c3d5e7f9a2b';

/**
 * The stable entity id of a token's subject: a UUID v5 of `issuer` and `sub`, so that the same person keeps
 * their id across sign-ins and two issuers' identical `sub`s never meet. Entity ids are UUIDs in the API.
 */
export function entityIdOf(issuer: string, subject: string): string {
  return uuidV5(`${issuer}\n${subject}`, IDENTITY_NAMESPACE);
}

/** The operator: the server token, or every request when no auth is configured (today's behaviour). */
export const OPERATOR: Identity = Object.freeze({
  kind: 'admin',
  entityId: '00000000-0000-0000-0000-000000000000',
  name: 'operator',
  roles: new Set(['admin']),
  subject: 'operator',
});

/** Whether `identity` may do everything: an admin, or no identity at all (no auth configured). */
export function isAdmin(identity: Identity | undefined): boolean {
  return identity === undefined || identity.kind === 'admin';
}
