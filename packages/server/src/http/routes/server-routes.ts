import { Hono } from 'hono';
import { hasServerToken, offeredApiKey } from '../../guards/api-key';
import { checkReadiness, type ReadinessProbe } from '../../health';
import { SIGN_IN_CONFIG_PATH, TOKEN_EXCHANGE_PATH } from '../../identity/sign-in-routes';
import { redactText } from '../../redaction/redact';
import { SERVER_PACKAGE_VERSION } from '../../api-docs/package-version';
import type { AppEnv } from '../app-env';
import { failure, success } from '../envelope';

/** Liveness path: answers 200 while the process serves HTTP. */
export const HEALTH_PATH = '/api/server/health';
/** Readiness path: 200 when every probe passes, else 503. */
export const READY_PATH = '/api/server/ready';

/**
 * Built-in paths open without `x-api-key` even when a server token is set: load-balancer and orchestrator
 * probes carry no secret. Liveness says only `ok`; readiness says only ready or not without the token, and its
 * checks (agent and MCP server names, why one is down) only to a caller that sends it. The chat page's sign-in
 * paths are how a visitor gets a credential, so they cannot ask for one.
 */
const OPEN_PATHS: ReadonlySet<string> = new Set([
  HEALTH_PATH,
  READY_PATH,
  SIGN_IN_CONFIG_PATH,
  TOKEN_EXCHANGE_PATH,
]);

/** Whether `path` is a built-in path that needs no API key. */
export function isOpenPath(path: string): boolean {
  return OPEN_PATHS.has(path);
}

/** Options of {@link serverRoutes}. */
export interface ServerRoutesOptions {
  /** What must be up before the server takes traffic (e.g. the database); none means always ready. */
  readiness?: readonly ReadinessProbe[];
  /** `SERVER_AUTH_TOKEN`: when set, readiness shows its checks only to a request carrying it. */
  authToken?: string;
  /** The agents' statuses, for `GET /api/server/status` (none: counts of zero). */
  agentStatuses?: () => readonly { status: string }[];
}

/** `GET /api/server/status` data, in the shape of elizaOS's `ServerStatus` (`@elizaos/api-client`). */
export function serverStatus(statuses: readonly { status: string }[]) {
  const active = statuses.filter((agent) => agent.status === 'active').length;
  const memory = process.memoryUsage();
  return {
    agents: { total: statuses.length, active, inactive: statuses.length - active },
    memory: {
      used: memory.heapUsed,
      total: memory.heapTotal,
      percentage: memory.heapTotal > 0 ? Math.round((memory.heapUsed / memory.heapTotal) * 100) : 0,
    },
    uptime: Math.round(process.uptime()),
    version: SERVER_PACKAGE_VERSION,
  };
}

/**
 * `GET /api/server/health` (liveness), `GET /api/server/ready` (readiness), and elizaOS's `ping`, `hello` and
 * `status` (behind the token like every other route). Agents: `agent-routes.ts`.
 */
export function serverRoutes(options: ServerRoutesOptions = {}): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(HEALTH_PATH, (c) => c.json(success({ status: 'ok' as const })));
  // elizaOS's server answers these unenveloped; its client reads either shape.
  routes.get('/api/server/ping', (c) => c.json({ pong: true as const, timestamp: Date.now() }));
  routes.get('/api/server/hello', (c) => c.json({ message: 'Hello World!' }));
  routes.get('/api/server/status', (c) =>
    c.json(success(serverStatus(options.agentStatuses?.() ?? []))),
  );
  routes.get(READY_PATH, async (c) => {
    const report = await checkReadiness(options.readiness ?? []);
    const offered = offeredApiKey({ header: (name) => c.req.header(name) });
    if (options.authToken && !hasServerToken(offered, options.authToken)) {
      // A load balancer's probe: up or down, nothing about what is configured or why.
      return report.ready
        ? c.json(success({ status: 'ready' as const }))
        : c.json(failure('UNAVAILABLE', 'Not ready'), 503);
    }
    // Details come from probes that repeat what dependencies said (an MCP server's initialize error): redacted.
    report.checks = report.checks.map((check) =>
      check.detail === undefined ? check : { ...check, detail: redactText(check.detail) },
    );
    if (report.ready) return c.json(success({ status: 'ready' as const, checks: report.checks }));
    const failed = report.checks.filter((check) => !check.ok);
    const reasons = failed.map((check) => `${check.name}: ${check.detail ?? 'not ready'}`);
    return c.json(
      failure('UNAVAILABLE', `Not ready (${reasons.join('; ')})`, { checks: report.checks }),
      503,
    );
  });
  return routes;
}
