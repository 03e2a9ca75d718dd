/** A character: the definition of an agent. */
export interface Character {
  /** The agent's name. */
  name: string;
  /** Stable id (UUID); when absent the server derives one from the name. */
  id?: string;
  /** System prompt. */
  system?: string;
  /** Biography lines used in the prompt. */
  bio?: string | string[];
  /** Per-agent settings, read through `runtime.getSetting`. */
  settings?: Record<string, string>;
  /** Names of the plugins this agent loads. */
  plugins?: string[];
}

/** Structured logger handed to plugins (a pino child logger on the server). */
export interface PluginLogger {
  debug(object: object | string, message?: string): void;
  info(object: object | string, message?: string): void;
  warn(object: object | string, message?: string): void;
  error(object: object | string, message?: string): void;
}

/**
 * The agent's runtime as a plugin sees it. One runtime exists per agent.
 */
export interface AgentRuntime {
  /** The agent's id (UUID). */
  readonly agentId: string;
  /** The agent's character. */
  readonly character: Readonly<Character> & { readonly name: string };
  /**
   * A setting: the character's `settings[key]`, else the environment variable `key`, else undefined.
   * `SERVER_URL` falls back to the server's own address.
   */
  getSetting(key: string): string | undefined;
  /** Logger scoped to this agent. */
  readonly logger: PluginLogger;
}
