import { API_KEY_HEADER } from '@parley/core';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env';
import { asPerson } from '../messaging/person-scope';
import { bearerChallenge } from './guard';
import { isAdmin } from './identity';
import { AuthError, type IdentityResolver } from './resolve-identity';

/** The credential a request carries: `x-api-key`, else `Authorization: Bearer`. */
export function offeredCredential(header: (name: string) => string | string[] | undefined) {
  const key = header(API_KEY_HEADER);
  if (typeof key === 'string' && key !== '') return key;
  const authorization = header('authorization');
  const match =
    typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return match?.[1];
}

/**
 * hono middleware that sets `c.get('identity')` from the request's credential (and runs the rest of the request
 * as that person's: `person-scope.ts`), or answers 401 with a
 * `WWW-Authenticate: Bearer` challenge (naming `resourceMetadata`, the protected-resource metadata, when given).
 */
export function identityAuth(
  resolver: IdentityResolver,
  options: { resourceMetadata?: (c: { req: { url: string } }) => string | undefined } = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let identity;
    try {
      identity = await resolver.resolve(offeredCredential((name) => c.req.header(name)));
      c.set('identity', identity);
    } catch (error) {
      if (error instanceof AuthError) {
        c.header(
          'WWW-Authenticate',
          bearerChallenge({
            error: error.reason === 'invalid' ? 'invalid_token' : undefined,
            resourceMetadata: options.resourceMetadata?.(c),
          }),
        );
      }
      throw error;
    }
    // What the request starts counts against the person's own budgets (a reply's place in the queue).
    await asPerson(isAdmin(identity) ? undefined : identity.entityId, next);
  };
}

/** The socket handshake's credential: `auth.apiKey` or `auth.token`, else the headers. */
export function socketCredential(handshake: {
  auth: unknown;
  headers: Record<string, string | string[] | undefined>;
}): string | undefined {
  const auth = (handshake.auth ?? {}) as { apiKey?: unknown; token?: unknown };
  if (typeof auth.apiKey === 'string') return auth.apiKey;
  if (typeof auth.token === 'string') return auth.token;
  return offeredCredential((name) => handshake.headers[name]);
}
