import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env';
import { isAdmin } from '../identity/identity';
import { isAdminOnly } from '../identity/admin-only';
import { actorOf, withAuditScope } from './audit-context';
import type { AuditLog } from './audit-log';

type Json = Record<string, unknown> | undefined;

/** One audited route: what a successful request's row says. */
interface AuditRule {
  methods: ReadonlySet<string>;
  pattern: RegExp;
  action: string;
  /** Only when the caller is an admin (routes people use on their own things too: channels). */
  adminOnly?: boolean;
  /** The target and detail, from the path's groups, the query and the answer's `data` (ids and names only). */
  describe: (
    groups: string[],
    query: Record<string, string>,
    data: Json,
  ) => { target?: string | null; detail?: Record<string, unknown> };
}

const methods = (...names: string[]) => new Set(names);
const AGENT = '/api/agents/([^/]+)';
const UUID = '([0-9a-fA-F-]{36})';

/**
 * The admin actions done over HTTP, recorded once they succeeded (2xx). Every other mutating request on an
 * admin-only path (identity/admin-only.ts) falls to {@link fallbackAction}, so a route added later is audited
 * under a generic name rather than not at all. Approval decisions are recorded where they are taken
 * (reply/approvals/paused-replies.ts), whichever face they came by.
 */
const RULES: readonly AuditRule[] = [
  {
    methods: methods('POST'),
    pattern: /^\/api\/agents\/?$/,
    action: 'agent.create',
    describe: (_g, _q, data) => ({ target: str(data?.id), detail: { name: str(data?.name) } }),
  },
  {
    methods: methods('PATCH', 'PUT'),
    pattern: new RegExp(`^${AGENT}/?$`),
    action: 'agent.update',
    describe: ([agentId], _q, data) => ({ target: agentId, detail: { name: str(data?.name) } }),
  },
  {
    methods: methods('DELETE'),
    pattern: new RegExp(`^${AGENT}/?$`),
    action: 'agent.delete',
    describe: ([agentId]) => ({ target: agentId }),
  },
  {
    methods: methods('POST'),
    pattern: new RegExp(`^${AGENT}/(start|stop)/?$`),
    action: 'agent.start',
    describe: ([agentId], _q, data) => ({ target: agentId, detail: { name: str(data?.name) } }),
  },
  {
    methods: methods('POST'),
    pattern: new RegExp(`^${AGENT}/knowledge/?$`),
    action: 'knowledge.create',
    describe: ([agentId], _q, data) => ({
      target: agentId,
      detail: {
        documentIds: (Array.isArray(data?.documents) ? (data.documents as Json[]) : []).map((d) =>
          str(d?.id),
        ),
      },
    }),
  },
  {
    methods: methods('DELETE'),
    pattern: new RegExp(`^${AGENT}/knowledge/([^/]+)/?$`),
    action: 'knowledge.delete',
    describe: ([agentId, documentId]) => ({ target: documentId, detail: { agentId } }),
  },
  {
    methods: methods('DELETE'),
    pattern: new RegExp(
      `^(?:/api/agents/([^/]+)/memories|/api/memory/([^/]+)/memories)/${UUID}/?$`,
    ),
    action: 'memory.delete',
    describe: ([a, b, memoryId]) => ({ target: memoryId, detail: { agentId: a ?? b } }),
  },
  {
    methods: methods('PATCH', 'PUT'),
    pattern: new RegExp(`^/api/memory/([^/]+)/memories/${UUID}/?$`),
    action: 'memory.update',
    describe: ([agentId, memoryId]) => ({ target: memoryId, detail: { agentId } }),
  },
  {
    methods: methods('DELETE'),
    pattern: new RegExp(`^/api/memory/([^/]+)/memories/all/([^/]+)/?$`),
    action: 'memory.delete',
    describe: ([agentId, roomId]) => ({ target: agentId, detail: { scope: 'room', roomId } }),
  },
  {
    methods: methods('DELETE'),
    pattern: /^(?:\/api\/agents\/([^/]+)\/memories|\/api\/memory\/([^/]+)\/memories)\/?$/,
    action: 'memory.delete',
    describe: ([a, b], query, data) => ({
      target: a ?? b,
      detail: {
        scope: 'all',
        tableName: query.tableName,
        entityId: query.entityId,
        deleted: typeof data?.deleted === 'number' ? data.deleted : undefined,
      },
    }),
  },
  {
    methods: methods('POST'),
    pattern: /^\/api\/webhooks\/?$/,
    action: 'webhook.create',
    // The answer carries the signing secret: only the id, the events and the target's host are kept.
    describe: (_g, _q, data) => ({
      target: str(data?.id),
      detail: { host: hostOf(data?.url), events: Array.isArray(data?.events) ? data.events : [] },
    }),
  },
  {
    methods: methods('PATCH', 'PUT'),
    pattern: /^\/api\/webhooks\/([^/]+)\/?$/,
    action: 'webhook.update',
    describe: ([id]) => ({ target: id }),
  },
  {
    methods: methods('DELETE'),
    pattern: /^\/api\/webhooks\/([^/]+)\/?$/,
    action: 'webhook.delete',
    describe: ([id]) => ({ target: id }),
  },
  {
    methods: methods('POST'),
    pattern: /^\/api\/webhooks\/([^/]+)\/deliveries\/([^/]+)\/retry\/?$/,
    action: 'webhook.retry',
    describe: ([id, deliveryId]) => ({ target: id, detail: { deliveryId } }),
  },
  {
    methods: methods('DELETE'),
    pattern: /^\/api\/messaging\/channels\/([^/]+)\/?$/,
    action: 'channel.delete',
    adminOnly: true,
    describe: ([channelId]) => ({ target: channelId }),
  },
  {
    methods: methods('DELETE'),
    pattern: /^\/api\/messaging\/channels\/([^/]+)\/messages\/?$/,
    action: 'channel.clear',
    adminOnly: true,
    describe: ([channelId]) => ({ target: channelId }),
  },
];

const MUTATING = methods('POST', 'PUT', 'PATCH', 'DELETE');

/** A mutating admin-only request no rule names: `admin.<method>`, the path as its target. */
function fallbackAction(method: string, path: string) {
  return { action: `admin.${method.toLowerCase()}`, target: path, detail: {} };
}

/**
 * hono middleware, first after the request id: runs the request in an audit scope (so whatever it decides
 * deep down knows its caller), and once it answered records the admin action it was (2xx only). A refused
 * admin-only request (403) is not written to the table (anyone could fill it) but is logged as an `audit` line
 * with `outcome: 'denied'`.
 */
export function auditActions(audit: AuditLog): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await withAuditScope(weakScopeOf(c), async () => {
      await next();
      const method = c.req.method.toUpperCase();
      if (!MUTATING.has(method)) return;
      const path = c.req.path;
      const status = c.res.status;
      if (status === 403 && isAdminOnly(method, path)) {
        c.get('logger').warn(
          {
            audit: {
              outcome: 'denied',
              actor: actorOf(c.get('identity')),
              method,
              path,
              requestId: c.get('requestId'),
            },
          },
          'audit',
        );
        return;
      }
      if (status < 200 || status >= 300) return;
      const described = await describe(c, method, path);
      if (described) await audit.record(described);
    });
  };
}

/**
 * The audit scope of a request. The scope outlives the request in whatever it started (a reply streams on after
 * its response, and lingers to be resumed), so it holds the request's context weakly: holding it kept every
 * finished request's objects (its node request, response and socket) alive as long as its reply
 * (`integration/durability/aborted-streams.test.ts` found 25 MB after 1,000 streams). Made in a function of its
 * own: closures made beside the middleware's would share its context, and with it `c`.
 */
function weakScopeOf(c: Context<AppEnv>) {
  const request = new WeakRef(c);
  return {
    identity: () => request.deref()?.get('identity'),
    requestId: () => request.deref()?.get('requestId'),
  };
}

async function describe(c: Context<AppEnv>, method: string, path: string) {
  for (const rule of RULES) {
    if (!rule.methods.has(method)) continue;
    const match = rule.pattern.exec(path);
    if (!match) continue;
    if (rule.adminOnly && !isAdmin(c.get('identity'))) return undefined;
    const groups = match
      .slice(1)
      .map((group) => (group === undefined ? undefined : group.toLowerCase()));
    const action = rule.action === 'agent.start' ? `agent.${groups.at(-1)!}` : rule.action;
    const { target, detail } = rule.describe(groups as string[], c.req.query(), await dataOf(c));
    return { action, target: target ?? null, detail: detail ?? {} };
  }
  return isAdminOnly(method, path) ? fallbackAction(method, path) : undefined;
}

/** The answer's `data` (the envelope's), when it is JSON; the response itself is left intact. */
async function dataOf(c: Context<AppEnv>): Promise<Json> {
  if (!c.res.headers.get('content-type')?.includes('application/json')) return undefined;
  try {
    const body = (await c.res.clone().json()) as { data?: unknown };
    return typeof body.data === 'object' && body.data !== null
      ? (body.data as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function hostOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return new URL(value).host;
  } catch {
    return undefined;
  }
}
