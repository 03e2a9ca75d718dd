import { ParleyError, uuidSchema } from '@parley/core';
import type { AgentRuntime } from '@parley/plugin-sdk';
import type { PluginRouteEntry } from '../plugin-route-table';

/**
 * Picks which agent serves a request among the entries that share its method and path. With `agentId`, that
 * agent (400 when it is not a UUID, 404 when no such agent exists or it lacks the route); without, the default
 * agent when it has the route, else the first agent that has it.
 *
 * @param entries - non-empty, in agent order.
 * @param agents - all agents; the first is the default agent.
 */
export function selectRouteEntry(
  entries: readonly PluginRouteEntry[],
  agents: readonly AgentRuntime[],
  agentId: string | undefined,
  label: string,
): PluginRouteEntry {
  if (agentId === undefined) {
    const defaultAgent = agents[0];
    const entry = entries.find((item) => item.agent === defaultAgent) ?? entries[0];
    if (!entry) throw new ParleyError('NOT_FOUND', `No agent serves ${label}`);
    return entry;
  }
  const parsed = uuidSchema.safeParse(agentId);
  if (!parsed.success) throw new ParleyError('BAD_REQUEST', 'agentId must be a UUID');
  const agent = agents.find((item) => item.agentId.toLowerCase() === parsed.data);
  if (!agent) throw new ParleyError('NOT_FOUND', `Unknown agent ${parsed.data}`);
  const entry = entries.find((item) => item.agent === agent);
  if (!entry) {
    throw new ParleyError('NOT_FOUND', `Agent ${agent.character.name} does not serve ${label}`);
  }
  return entry;
}
