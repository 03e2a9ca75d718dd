import { ParleyError, type AgentSummary } from '@parley/core';
import { ConfigError } from '../errors/config-error';
import type { Character } from '@parley/plugin-sdk';
import { toAgentProfile, type AgentProfile } from './agent-profile';
import { DEFAULT_CHARACTER } from './character';

/**
 * A server's agents (profiles, or the runtimes made from them), in the order given; the first is the default
 * agent. Agents created at run time are added (`put`) and removed by the agent manager
 * (`agents/agent-manager.ts`), which also stops and starts them: a stopped agent stays listed and `find`
 * returns it, but `get` and `available` refuse it (CONFLICT), so no message reaches it.
 */
export class AgentRegistry<Agent extends AgentProfile = AgentProfile> {
  readonly #agents = new Map<string, Agent>();
  readonly #stopped = new Set<string>();
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

  /** The agent with this id, or a NOT_FOUND error; a CONFLICT error when it is stopped. */
  get(agentId: string): Agent {
    const agent = this.find(agentId);
    if (!agent) throw new ParleyError('NOT_FOUND', `Unknown agent ${agentId}`);
    return this.available(agent);
  }

  /** The agent, when it answers: a stopped agent is a CONFLICT error naming how to start it. */
  available(agent: Agent): Agent {
    if (this.#stopped.has(agent.agentId)) {
      throw new ParleyError(
        'CONFLICT',
        `Agent ${agent.character.name} (${agent.agentId}) is stopped; start it with POST /api/agents/${agent.agentId}/start`,
      );
    }
    return agent;
  }

  /** Whether the agent is stopped (it keeps its place and its data, and answers nothing). */
  isStopped(agentId: string): boolean {
    return this.#stopped.has(agentId.toLowerCase());
  }

  /** Stops or starts an agent of the registry (nothing for an unknown id). */
  setStopped(agentId: string, stopped: boolean): void {
    const id = agentId.toLowerCase();
    if (stopped && this.#agents.has(id)) this.#stopped.add(id);
    else this.#stopped.delete(id);
  }

  /** Adds an agent after the others, or puts it in the place of the one with its id. */
  put(agent: Agent): void {
    this.#agents.set(agent.agentId, agent);
  }

  /** Removes an agent (never the default agent); whether it was there. */
  remove(agentId: string): boolean {
    const id = agentId.toLowerCase();
    if (id === this.defaultAgent.agentId) {
      throw new ParleyError('CONFLICT', 'The default agent cannot be removed');
    }
    this.#stopped.delete(id);
    return this.#agents.delete(id);
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
