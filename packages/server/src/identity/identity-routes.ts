import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env';
import { success } from '../http/envelope';
import { isOpenPath } from '../http/routes/server-routes';
import { adminOnlyGuard } from './admin-only';
import { identityAuth } from './identity-middleware';
import type { IdentityResolver } from './resolve-identity';
import type { AuthSettings } from './auth-settings';

/** Where guests get their token (`AUTH_ANONYMOUS`). */
export const GUEST_PATH = '/api/auth/guest';
/** RFC 9728 protected-resource metadata (the MCP authorization spec's discovery of the authorization server). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The URL of `/mcp`'s protected-resource metadata, as a 401's `WWW-Authenticate` names it. */
export function resourceMetadataUrl(requestUrl: string): string {
  return `${new URL(requestUrl).origin}${RESOURCE_METADATA_PATH}/mcp`;
}

/**
 * The middleware of every built-in path when people sign in: open paths (health, readiness, agent cards, the
 * guest door) pass; everything else needs a credential (the identity it resolves to is `c.get('identity')`),
 * and admin-only endpoints need an admin.
 */
export function identityGuards(
  resolver: IdentityResolver,
  isAlsoOpen: (path: string) => boolean,
): MiddlewareHandler<AppEnv> {
  const auth = identityAuth(resolver, {
    resourceMetadata: (c) =>
      new URL(c.req.url).pathname.startsWith('/mcp') ? resourceMetadataUrl(c.req.url) : undefined,
  });
  const admin = adminOnlyGuard();
  return async (c, next) => {
    const path = c.req.path;
    if (isOpenPath(path) || isAlsoOpen(path) || path === GUEST_PATH) return next();
    await auth(c, async () => {
      await admin(c, next);
    });
  };
}

/** Paths outside the built-in prefixes that the identity guards also cover. */
export function isIdentityGuardedPath(path: string): boolean {
  return (
    path === '/api/auth' ||
    path.startsWith('/api/auth/') ||
    path === '/api/audit' ||
    path.startsWith('/api/audit/')
  );
}

/**
 * The identity routes: `POST /api/auth/guest` (a signed guest token, `AUTH_ANONYMOUS` only), `GET /api/auth/me`
 * (who the credential is) and the protected-resource metadata of `/mcp`.
 */
export function identityRoutes(
  resolver: IdentityResolver,
  settings: AuthSettings = resolver.settings,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post(GUEST_PATH, async (c) => {
    const { token, identity, expiresAt } = await resolver.issueGuest();
    return c.json(
      success({ token, tokenType: 'Bearer', expiresAt, entityId: identity.entityId }),
      201,
    );
  });
  routes.get('/api/auth/me', (c) => {
    const identity = c.get('identity');
    return c.json(
      success(
        identity
          ? {
              kind: identity.kind,
              entityId: identity.entityId,
              name: identity.name,
              roles: [...identity.roles],
            }
          : { kind: 'admin', roles: ['admin'] },
      ),
    );
  });
  const metadata = (c: Context<AppEnv>) => {
    const origin = new URL(c.req.url).origin;
    return c.json({
      resource: `${origin}/mcp`,
      authorization_servers: settings.AUTH_ISSUER ? [settings.AUTH_ISSUER] : [],
      bearer_methods_supported: ['header'],
      resource_name: 'Parley MCP',
    });
  };
  routes.get(RESOURCE_METADATA_PATH, metadata);
  routes.get(`${RESOURCE_METADATA_PATH}/mcp`, metadata);
  return routes;
}
