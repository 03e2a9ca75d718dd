import { ParleyError } from '@parley/core';
import type {
  AgentPostOptions,
  AgentRuntime,
  AgentScheduleOptions,
  Character,
  ControlOptions,
  PluginLogger,
  ScheduledMessageInfo,
} from '@parley/plugin-sdk';
import { agentIdOf } from './agent-id';

/** What a runtime needs from its server. */
export interface AgentRuntimeContext {
  /** Environment used as the settings fallback. */
  env: Readonly<Record<string, string | undefined>>;
  /** The server's own address, once known. */
  serverUrl: () => string;
  logger: PluginLogger;
}

/** What an agent can do through the server, attached once the server's services exist. */
export interface AgentServices {
  sendMessage(agent: ParleyAgentRuntime, options: AgentPostOptions): Promise<{ id: string }>;
  scheduleMessage(
    agent: ParleyAgentRuntime,
    options: AgentScheduleOptions,
  ): Promise<ScheduledMessageInfo>;
  sendControl(options: ControlOptions): void;
}

/**
 * One agent's runtime: identity, settings and logger, plus messaging capabilities that the server attaches
 * when it composes its services.
 */
export class ParleyAgentRuntime implements AgentRuntime {
  readonly agentId: string;
  readonly character: Readonly<Character> & { readonly name: string };
  readonly logger: PluginLogger;
  readonly #context: AgentRuntimeContext;
  #services: AgentServices | undefined;

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

  /** Connects the runtime to the server's services. */
  attach(services: AgentServices): void {
    this.#services = services;
  }

  sendMessage(options: AgentPostOptions): Promise<{ id: string }> {
    return this.#require().sendMessage(this, options);
  }

  scheduleMessage(options: AgentScheduleOptions): Promise<ScheduledMessageInfo> {
    return this.#require().scheduleMessage(this, options);
  }

  sendControl(options: ControlOptions): void {
    this.#require().sendControl(options);
  }

  #require(): AgentServices {
    if (!this.#services)
      throw new ParleyError('UNAVAILABLE', 'The agent is not attached to a server');
    return this.#services;
  }
}
