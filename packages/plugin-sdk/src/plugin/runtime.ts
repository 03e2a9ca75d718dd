import type { IfBusy } from '@parley/core';
import type { Action, Evaluator, Memory, Provider, State } from './action';

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
  /**
   * Per-agent settings, read through `runtime.getSetting` (as text). Values keep the form the character gives
   * them: elizaOS plugins read some directly, as objects (`runtime.character.settings.heartbeat.enabled`).
   */
  settings?: Record<string, CharacterSetting>;
  /** Per-agent secrets, read through `runtime.getSetting` before `settings`; never logged. */
  secrets?: Record<string, string>;
  /** Names of the plugins this agent loads. */
  plugins?: string[];
  /** What a channel message does while this agent is still answering in its channel (default `enqueue`). */
  ifBusy?: IfBusy;
}

/** A setting's value in a character: text, or (as in elizaOS character files) a number, boolean, list or object. */
export type CharacterSetting =
  string | number | boolean | null | CharacterSetting[] | { [key: string]: CharacterSetting };

/** Structured logger handed to plugins (a pino child logger on the server). */
export interface PluginLogger {
  debug(object: object | string, message?: string): void;
  info(object: object | string, message?: string): void;
  warn(object: object | string, message?: string): void;
  error(object: object | string, message?: string): void;
}

/** A message the agent posts into a channel. */
export interface AgentPostOptions {
  /** Target channel (UUID); created on first use. */
  channelId: string;
  text: string;
  thought?: string;
  actions?: string[];
  /** Free-form metadata, for example `attachments`. */
  metadata?: Record<string, unknown>;
  /** Server id (default: the all-zero UUID). */
  serverId?: string;
  /** Id of the message this one answers. */
  inReplyTo?: string;
  /**
   * The id (UUID) to store the message under; default: a new one. A second post with the same id fails with a
   * `CONFLICT` error instead of posting twice, which makes a post idempotent (derive the id from the event's
   * own id, e.g. a UUID v5 of a webhook delivery id).
   */
  id?: string;
}

/** A message the agent will post later. */
export interface AgentScheduleOptions {
  channelId: string;
  text: string;
  /** When to post: must be in the future. */
  sendAt: Date;
  metadata?: Record<string, unknown>;
}

/** A scheduled message, as stored. */
export interface ScheduledMessageInfo {
  id: string;
  channelId: string;
  /** ISO 8601 instant. */
  sendAt: string;
}

/** Asks the clients of a room to enable or disable their input. */
export interface ControlOptions {
  channelId: string;
  action: 'enable_input' | 'disable_input';
  /** Optional target (an entity id or a UI element name). */
  target?: string;
}

/**
 * A service a plugin offers to other plugins and to its routes (elizaOS's `Service` shape): an object made by
 * its class's `start(runtime)`, found with `runtime.getService(serviceType)`.
 */
export interface PluginService {
  /** Called when the server stops. */
  stop?(): Promise<void> | void;
  capabilityDescription?: string;
}

/** A service class: `static serviceType` and `static start(runtime)`. */
export interface PluginServiceClass<Service extends PluginService = PluginService> {
  readonly serviceType: string;
  start(runtime: AgentRuntime): Promise<Service> | Service;
}

/** A handler of a runtime event (`runtime.emitEvent(name, params)`). */
export type PluginEventHandler = (params: Record<string, unknown>) => Promise<void> | void;

/**
 * The agent's runtime as a plugin sees it. One runtime exists per agent. A plugin that touches a member of
 * elizaOS's runtime that Parley does not offer (memories, rooms, tasks…) gets an error naming the member
 * and the plugin, not `x is not a function`.
 */
export interface AgentRuntime {
  /** The agent's id (UUID). */
  readonly agentId: string;
  /**
   * The agent's character: this agent's own copy, so a plugin may change its `settings` (elizaOS plugins keep
   * their configuration there) without touching other agents or the character file. Logging it shows no
   * settings or secrets.
   */
  readonly character: Character;
  /**
   * A setting: the character's `secrets[key]`, else its `settings[key]`, else the environment variable `key`,
   * else undefined. Empty values count as unset. `SERVER_URL` falls back to the server's own address.
   */
  getSetting(key: string): string | undefined;
  /**
   * Sets (or, with `undefined`, removes) a setting of this agent, in its character's `settings`, or in its
   * `secrets` when `secret` is true. Other agents and the environment are not touched.
   */
  setSetting(key: string, value: string | undefined, secret?: boolean): void;
  /** Logger scoped to this agent. */
  readonly logger: PluginLogger;
  /**
   * Posts a message as this agent: stored durably, then broadcast to the channel's room. Resolves with the
   * stored message's id.
   */
  sendMessage(options: AgentPostOptions): Promise<{ id: string }>;
  /**
   * Schedules a message: stored durably and posted once at `sendAt` (within about a second), also across a
   * restart and when several server processes share one database.
   */
  scheduleMessage(options: AgentScheduleOptions): Promise<ScheduledMessageInfo>;
  /** Sends `controlMessage` to every client in the channel's room. */
  sendControl(options: ControlOptions): void;
  /** The service a plugin of this agent started under `serviceType`, or null. */
  getService<Service = PluginService>(serviceType: string): Service | null;
  /** Whether a service runs under `serviceType`. */
  hasService(serviceType: string): boolean;
  /** Starts a service class for this agent (`start(runtime)`) and makes it available to `getService`. */
  registerService(service: PluginServiceClass): Promise<void>;
  /** Runs every handler registered for the event(s), in registration order; rejects when one fails. */
  emitEvent(event: string | string[], params: Record<string, unknown>): Promise<void>;
  /** Registers a handler for an event of this agent. */
  registerEvent(event: string, handler: PluginEventHandler): void;
  /** The actions of the plugins this agent loads. */
  readonly actions: readonly Action[];
  /** The providers of the plugins this agent loads. */
  readonly providers: readonly Provider[];
  /** The evaluators of the plugins this agent loads. */
  readonly evaluators: readonly Evaluator[];
  /** Adds an action to this agent (elizaOS `registerAction`); a second one with the same name is refused. */
  registerAction(action: Action): void;
  /** Adds a provider to this agent. */
  registerProvider(provider: Provider): void;
  /** Adds an evaluator to this agent. */
  registerEvaluator(evaluator: Evaluator): void;
  /**
   * Runs this agent's providers for `message` (elizaOS `composeState`): every non-private, non-dynamic one,
   * plus those named in `includeList`; only those with `onlyInclude`. A provider that fails is logged and left
   * out. Resolves with their values, data and texts.
   */
  composeState(
    message: Memory,
    includeList?: string[] | null,
    onlyInclude?: boolean,
    skipCache?: boolean,
  ): Promise<State>;
  /**
   * Asks this agent's model (elizaOS `useModel`): `TEXT_SMALL`, `TEXT_LARGE` and the reasoning types answer the
   * `prompt` as text; `OBJECT_SMALL`, `OBJECT_LARGE` parse the answer as JSON. Other types (embeddings, images,
   * audio) throw an error naming the type.
   */
  useModel(modelType: string, params: ModelParams): Promise<unknown>;
  /**
   * This agent's component of `type` for `entityId` (elizaOS `getComponent`), narrowed by `worldId` and
   * `sourceEntityId` when given; null when there is none. Components are stored in the server's database, per
   * agent: they survive restarts and no other agent sees them.
   */
  getComponent(
    entityId: string,
    type: string,
    worldId?: string,
    sourceEntityId?: string,
  ): Promise<Component | null>;
  /** This agent's components for `entityId`, oldest first, narrowed by `worldId` and `sourceEntityId` when given. */
  getComponents(entityId: string, worldId?: string, sourceEntityId?: string): Promise<Component[]>;
  /**
   * Stores a new component for this agent. Resolves true; rejects when its id is taken, a field is not a UUID,
   * its `data` is larger than the server's bound, or the agent already holds as many components as allowed.
   */
  createComponent(component: Component): Promise<boolean>;
  /**
   * Replaces the `type`, ids and `data` of this agent's component with the same `id` (none: nothing changes, as
   * in elizaOS); rejects on the fields as `createComponent` does.
   */
  updateComponent(component: Component): Promise<void>;
  /** Deletes this agent's component `id` (nothing when there is none). */
  deleteComponent(componentId: string): Promise<void>;
}

/**
 * A piece of data an agent keeps about an entity (elizaOS `Component`): plugins use them as durable, typed
 * records (`type`), e.g. a job list kept under the agent's own id. `agentId` is always the agent that stored it.
 */
export interface Component {
  /** UUID. */
  id: string;
  /** Whom it is about (UUID). */
  entityId: string;
  agentId: string;
  /** UUID, or empty. */
  roomId?: string;
  /** UUID, or empty. */
  worldId?: string;
  /** Who it comes from (UUID), or empty. */
  sourceEntityId?: string;
  type: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** A JSON object. */
  data: Record<string, unknown>;
}

/** What {@link AgentRuntime.useModel} takes (elizaOS's text generation parameters). */
export interface ModelParams {
  prompt?: string;
  system?: string;
  /** Accepted and passed on where the model takes them. */
  temperature?: number;
  maxTokens?: number;
  stopSequences?: string[];
  [key: string]: unknown;
}

/** elizaOS's model type names that {@link AgentRuntime.useModel} answers. */
export const ModelType = {
  TEXT_SMALL: 'TEXT_SMALL',
  TEXT_LARGE: 'TEXT_LARGE',
  TEXT_REASONING_SMALL: 'REASONING_SMALL',
  TEXT_REASONING_LARGE: 'REASONING_LARGE',
  OBJECT_SMALL: 'OBJECT_SMALL',
  OBJECT_LARGE: 'OBJECT_LARGE',
} as const;
