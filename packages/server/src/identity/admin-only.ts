import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env';
import { requireAdmin } from './guard';

/**
 * The built-in endpoints only an admin may call, whoever else is signed in: agent management (create, update,
 * delete, start, stop; their knowledge), webhooks, the audit, and elizaOS's memory API (every person's memories
 * at once). Reading the agent list and profiles stays open to every identity: people need it to pick whom to
 * talk to. `/api/agents/{id}/memories` is open to people for their own memories only (create-server.ts binds
 * the entity to the caller).
 */
const ADMIN_ONLY: readonly { pattern: RegExp; methods?: ReadonlySet<string> }[] = [
  { pattern: /^\/api\/agents\/?$/, methods: new Set(['POST', 'PUT', 'PATCH', 'DELETE']) },
  { pattern: /^\/api\/agents\/[^/]+\/?$/, methods: new Set(['POST', 'PUT', 'PATCH', 'DELETE']) },
  { pattern: /^\/api\/agents\/[^/]+\/(start|stop)\/?$/ },
  {
    pattern: /^\/api\/agents\/[^/]+\/knowledge(\/|$)/,
    methods: new Set(['POST', 'PUT', 'PATCH', 'DELETE']),
  },
  { pattern: /^\/api\/memory(\/|$)/ },
  { pattern: /^\/api\/webhooks(\/|$)/ },
  { pattern: /^\/api\/audit(\/|$)/ },
];

/** Whether `method path` is for admins only (see {@link ADMIN_ONLY}). */
export function isAdminOnly(method: string, path: string): boolean {
  return ADMIN_ONLY.some(
    ({ pattern, methods }) => pattern.test(path) && (!methods || methods.has(method.toUpperCase())),
  );
}

/** hono middleware: FORBIDDEN on an admin-only endpoint unless the request's identity is an admin. */
export function adminOnlyGuard(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (isAdminOnly(c.req.method, c.req.path))
      requireAdmin(c.get('identity'), `${c.req.method} ${c.req.path}`);
    await next();
  };
}
