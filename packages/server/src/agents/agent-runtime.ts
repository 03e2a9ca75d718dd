import type {
  AgentPostOptions,
  AgentRuntime,
  AgentScheduleOptions,
  ControlOptions,
  PluginLogger,
  ScheduledMessageInfo,
} from '@parley/plugin-sdk';
import type { AgentProfile } from './agent-profile';

/**
 * What an agent can do through the server. The small interface between agents and messaging: the runtime
 * depends on it, not on the messaging service, so that neither needs the other to exist first.
 */
export interface AgentServices {
  sendMessage(agent: AgentProfile, options: AgentPostOptions): Promise<{ id: string }>;
  scheduleMessage(agent: AgentProfile, options: AgentScheduleOptions): Promise<ScheduledMessageInfo>;
  sendControl(options: ControlOptions): void;
}

/** What a runtime is given at construction. */
export interface AgentRuntimeContext {
  /** Environment used as the settings fallback. */
  env: Readonly<Record<string, string | undefined>>;
  /** The server's own address, once known. */
  serverUrl: () => string;
  logger: PluginLogger;
  services: AgentServices;
}

/** One agent's runtime, as plugins see it: identity, settings, logger and the server's services. */
export class ParleyAgentRuntime implements AgentRuntime {
  readonly agentId: string;
  readonly character: AgentProfile['character'];
  readonly logger: PluginLogger;
  readonly #profile: AgentProfile;
  readonly #context: AgentRuntimeContext;

  constructor(profile: AgentProfile, context: AgentRuntimeContext) {
    this.#profile = profile;
    this.agentId = profile.agentId;
    this.character = profile.character;
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

  sendMessage(options: AgentPostOptions): Promise<{ id: string }> {
    return this.#context.services.sendMessage(this.#profile, options);
  }

  scheduleMessage(options: AgentScheduleOptions): Promise<ScheduledMessageInfo> {
    return this.#context.services.scheduleMessage(this.#profile, options);
  }

  sendControl(options: ControlOptions): void {
    this.#context.services.sendControl(options);
  }
}
