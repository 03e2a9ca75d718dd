import type { AgentRuntime, Character, PluginLogger } from '@parley/plugin-sdk';
import { agentIdOf } from './agent-id';

/** What a runtime needs from its server. */
export interface AgentRuntimeContext {
  /** Environment used as the settings fallback. */
  env: Readonly<Record<string, string | undefined>>;
  /** The server's own address, once known. */
  serverUrl: () => string;
  logger: PluginLogger;
}

/**
 * One agent's runtime: identity, settings and logger. Messaging and plugin capabilities are attached by the
 * server when it composes the agent.
 */
export class ParleyAgentRuntime implements AgentRuntime {
  readonly agentId: string;
  readonly character: Readonly<Character> & { readonly name: string };
  readonly logger: PluginLogger;
  readonly #context: AgentRuntimeContext;

  constructor(character: Character, context: AgentRuntimeContext) {
    this.character = Object.freeze({ ...character });
    this.agentId = agentIdOf(character);
    this.logger = context.logger;
    this.#context = context;
  }

  getSetting(key: string): string | undefined {
    const fromCharacter = this.character.settings?.[key];
    if (fromCharacter !== undefined && fromCharacter !== '') return fromCharacter;
    const fromEnv = this.#context.env[key];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    if (key === 'SERVER_URL') return this.#context.serverUrl();
    return undefined;
  }
}
