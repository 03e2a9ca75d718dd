import { Hono } from 'hono';
import type { AgentRegistry } from '../../agents/agent-registry';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';

/** `GET /api/server/health` and `GET /api/agents`. */
export function serverRoutes(agents: AgentRegistry): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/server/health', (c) => c.json(success({ status: 'ok' as const })));
  routes.get('/api/agents', (c) => c.json(success(agents.summaries())));
  return routes;
}
