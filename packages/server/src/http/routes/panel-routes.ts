import { parseOrThrow, uuidSchema } from '@parley/core';
import { Hono } from 'hono';
import type { AgentManager } from '../../agents/agent-manager';
import type { PluginRouteEntry } from '../../plugins/plugin-route-table';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';

/** One panel of `GET /api/agents/{agentId}/panels`, as elizaOS's server lists it. */
export interface AgentPanel {
  name: string;
  /** Where the panel is served: the route's own path, with `?agentId=` so that this agent serves it. */
  path: string;
}

/**
 * The panels of an agent, as elizaOS defines them: its plugins' routes that are `public` and have a `name`
 * (GET or STATIC, what a browser can open), in plugin order. Parley serves plugin routes at exactly their path.
 */
export function panelsOf(entries: readonly PluginRouteEntry[], agentId: string): AgentPanel[] {
  return entries
    .filter(
      (entry) =>
        entry.agent.agentId === agentId &&
        entry.route.public === true &&
        typeof entry.route.name === 'string' &&
        entry.route.name.length > 0 &&
        (entry.route.type === 'GET' || entry.route.type === 'STATIC'),
    )
    .map((entry) => ({
      name: entry.route.name!,
      path: `${entry.route.path}?agentId=${encodeURIComponent(agentId)}`,
    }));
}

/**
 * `GET /api/agents/{agentId}/panels` (elizaOS's `agents.getAgentPanels`): 404 for an unknown agent, as the
 * other agent routes answer; the list is built from the plugin routes mounted at start.
 */
export function panelRoutes(
  agents: AgentManager,
  pluginEntries: () => readonly PluginRouteEntry[],
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/api/agents/:agentId/panels', async (c) => {
    const agentId = parseOrThrow(uuidSchema, c.req.param('agentId'), 'agentId');
    const agent = await agents.details(agentId);
    return c.json(success(panelsOf(pluginEntries(), agent.id)));
  });
  return routes;
}
