import { ParleyError, type AgentSummary } from '@parley/core';
import { ConfigError } from '../config/config-error';
import type { Character } from '@parley/plugin-sdk';
import { toAgentProfile, type AgentProfile } from './agent-profile';
import { DEFAULT_CHARACTER } from './character';

/**
 * A server's agents (profiles, or the runtimes made from them), in the order given; the first is the default
 * agent.
 */
export class AgentRegistry<Agent extends AgentProfile = AgentProfile> {
  readonly #agents = new Map<string, Agent>();
  readonly defaultAgent: Agent;

  /** Refuses an empty list and two agents with one id. */
  constructor(agents: readonly Agent[]) {
    for (const agent of agents) {
      const existing = this.#agents.get(agent.agentId);
      if (existing) {
        throw new ConfigError(
          `agents ${existing.character.name} and ${agent.character.name} have the same id ${agent.agentId}`,
        );
      }
      this.#agents.set(agent.agentId, agent);
    }
    const first = this.#agents.values().next();
    if (first.done) throw new ConfigError('a server needs at least one agent');
    this.defaultAgent = first.value;
  }

  /** All agents, default first. */
  list(): Agent[] {
    return [...this.#agents.values()];
  }

  /** The agent with this id, if any. */
  find(agentId: string): Agent | undefined {
    return this.#agents.get(agentId.toLowerCase());
  }

  /** The agent with this id, or a NOT_FOUND error. */
  get(agentId: string): Agent {
    const agent = this.find(agentId);
    if (!agent) throw new ParleyError('NOT_FOUND', `Unknown agent ${agentId}`);
    return agent;
  }

  /** The `GET /api/agents` listing. */
  summaries(): AgentSummary[] {
    return this.list().map((agent) => ({ id: agent.agentId, name: agent.character.name }));
  }

  /** A registry of something made from each agent, in the same order (the runtimes of the profiles). */
  map<Next extends AgentProfile>(make: (agent: Agent) => Next): AgentRegistry<Next> {
    return new AgentRegistry(this.list().map(make));
  }
}

/** The agents of a server: one per character, or the built-in Eliza when there is none. */
export function createAgentProfiles(characters: readonly Character[]): AgentRegistry {
  const list = characters.length > 0 ? characters : [DEFAULT_CHARACTER];
  return new AgentRegistry(list.map(toAgentProfile));
}
