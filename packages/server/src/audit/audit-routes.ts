import { auditQuerySchema, parseOrThrow } from '@parley/core';
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { success } from '../http/envelope';
import { requireAdmin } from '../identity/guard';
import type { AuditStore } from './audit-store';

/** The audit log's one door. */
export const AUDIT_PATH = '/api/audit';

/**
 * `GET /api/audit`: the audit log, newest first, a page at a time (`before` = the previous page's `nextBefore`).
 * Admins only (the identity guards refuse others first; checked here again so the route is closed on its own).
 * There is no other method: the log is read here and written only by the server.
 */
export function auditRoutes(store: AuditStore): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(AUDIT_PATH, async (c) => {
    requireAdmin(c.get('identity'), `GET ${AUDIT_PATH}`);
    const query = parseOrThrow(auditQuerySchema, c.req.query(), 'query');
    const entries = await store.list({
      ...query,
      since: query.since === undefined ? undefined : new Date(query.since),
    });
    const last = entries.at(-1);
    return c.json(
      success({
        entries,
        nextBefore: entries.length === query.limit && last ? last.seq : null,
      }),
    );
  });
  return routes;
}
