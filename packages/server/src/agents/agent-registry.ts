import { ParleyError, type AgentSummary } from '@parley/core';
import type { Character } from '@parley/plugin-sdk';
import { ConfigError } from '../config/config-error';
import { ParleyAgentRuntime, type AgentRuntimeContext } from './agent-runtime';
import { DEFAULT_CHARACTER } from './character';

/** The server's agents, in the order given; the first is the default agent. */
export class AgentRegistry {
  readonly #agents = new Map<string, ParleyAgentRuntime>();
  readonly defaultAgent: ParleyAgentRuntime;

  constructor(
    characters: readonly Character[],
    context: (character: Character) => AgentRuntimeContext,
  ) {
    const list = characters.length > 0 ? characters : [DEFAULT_CHARACTER];
    for (const character of list) {
      const runtime = new ParleyAgentRuntime(character, context(character));
      const existing = this.#agents.get(runtime.agentId);
      if (existing) {
        throw new ConfigError(
          `agents ${existing.character.name} and ${character.name} have the same id ${runtime.agentId}`,
        );
      }
      this.#agents.set(runtime.agentId, runtime);
    }
    this.defaultAgent = this.#agents.values().next().value!;
  }

  /** All agents, default first. */
  list(): ParleyAgentRuntime[] {
    return [...this.#agents.values()];
  }

  /** The agent with this id, if any. */
  find(agentId: string): ParleyAgentRuntime | undefined {
    return this.#agents.get(agentId.toLowerCase());
  }

  /** The agent with this id, or a NOT_FOUND error. */
  get(agentId: string): ParleyAgentRuntime {
    const agent = this.find(agentId);
    if (!agent) throw new ParleyError('NOT_FOUND', `Unknown agent ${agentId}`);
    return agent;
  }

  /** The `GET /api/agents` listing. */
  summaries(): AgentSummary[] {
    return this.list().map((agent) => ({ id: agent.agentId, name: agent.character.name }));
  }
}
