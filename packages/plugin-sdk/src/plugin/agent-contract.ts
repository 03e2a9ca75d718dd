import type { IfBusy } from '@parley/core';

/**
 * The types of the agent contract: what an agent acts with (actions, providers, evaluators, in the shapes of
 * `@elizaos/core` 1.x) and the runtime they receive. They refer to each other (an action's handler takes the
 * runtime; the runtime lists the actions), so they live in one file; `action.ts` and `runtime.ts` re-export them.
 */

/** The content of a message (elizaOS `Content`): its text and what the agent did. */
export interface Content {
  text?: string;
  thought?: string;
  /** Names of the actions taken. */
  actions?: string[];
  providers?: string[];
  /** Where the message came from (`api`, `socketio`, `action`…). */
  source?: string;
  attachments?: unknown[];
  [key: string]: unknown;
}

/** A message as an action or provider sees it (elizaOS `Memory`). In Parley, `roomId` is the channel id. */
export interface Memory {
  id?: string;
  /** Who wrote it: the user's entity id, or the agent's id. */
  entityId: string;
  agentId?: string;
  /** The channel. */
  roomId: string;
  /** The channel (the same as `roomId`). */
  channelId?: string;
  worldId?: string;
  content: Content;
  /** Epoch milliseconds. */
  createdAt?: number;
  metadata?: Record<string, unknown>;
}

/** What providers composed for one model call (elizaOS `State`). */
export interface State {
  /** Named values, for templates (`{{agentName}}`, `{{recentMessages}}`…). */
  values: Record<string, unknown>;
  /** Structured data, by provider. */
  data: Record<string, unknown>;
  /** The providers' texts, joined. */
  text: string;
  [key: string]: unknown;
}

/** What an action's handler returns (elizaOS `ActionResult`); the model sees `text`, else `values` and `data`. */
export interface ActionResult {
  success: boolean;
  text?: string;
  values?: Record<string, unknown>;
  data?: Record<string, unknown>;
  error?: string | Error;
}

/** Posts `response` into the channel as the agent; resolves with the stored message(s). */
export type HandlerCallback = (response: Content, files?: unknown) => Promise<Memory[]>;

/** One example turn of an action's conversation (elizaOS `ActionExample`). */
export interface ActionExample {
  name: string;
  content: Content;
}

/** One parameter in elizaOS 2.0's list form. */
export interface ActionParameter {
  name: string;
  description?: string;
  required?: boolean;
  /** JSON Schema of the value (`{ type: 'string' }`…). */
  schema?: Record<string, unknown>;
}

/**
 * A schema with a zod-like `safeParse` (zod 4 schemas are offered to models through `z.toJSONSchema`). The
 * validated value, defaults and transforms applied, is what the handler receives.
 */
export interface ParameterSchema<Output = unknown> {
  safeParse(
    value: unknown,
  ):
    | { success: true; data: Output }
    | { success: false; error: { issues?: readonly unknown[]; message?: string } };
}

/**
 * An action's input: a JSON Schema object (`{ type: 'object', properties, required }`), a zod object schema, or
 * elizaOS 2.0's list of parameters. An action with parameters is offered to tool-calling models as a tool.
 */
export type ActionParameters =
  Record<string, unknown> | ParameterSchema<Record<string, unknown>> | readonly ActionParameter[];

/** What a handler gets as `options`: the validated input, the call's id and the reply's signal. */
export interface HandlerOptions<Params = Record<string, unknown>> {
  /** The model's arguments, validated against the action's `parameters` (elizaOS 2.0's convention). */
  parameters?: Params;
  /** The model's id of this call. */
  toolCallId?: string;
  /** Aborted when the reply is cancelled or the call's deadline passes: stop work and return. */
  signal?: AbortSignal;
  [key: string]: unknown;
}

/** What an action's handler may return: elizaOS 1.x handlers return an ActionResult, older ones a boolean. */
export type ActionHandlerReturn = ActionResult | boolean | void | undefined | null;

/** Something the agent can do (elizaOS `Action`). */
export interface Action<Params = Record<string, unknown>> {
  /** Unique within the agent, e.g. `CREATE_TICKET`; the tool's name. */
  name: string;
  /** Other names the model may use for it. */
  similes?: string[];
  /** What it does, for the model. */
  description: string;
  examples?: ActionExample[][];
  /** The input it takes (see {@link ActionParameters}); without it, it takes none. */
  parameters?: ActionParameters;
  /** Whether the action fits this message; an action that answers false is not offered. Default: true. */
  validate?: (runtime: AgentRuntime, message: Memory, state?: State) => Promise<boolean> | boolean;
  handler: (
    runtime: AgentRuntime,
    message: Memory,
    state?: State,
    options?: HandlerOptions<Params>,
    callback?: HandlerCallback,
    responses?: Memory[],
  ) => Promise<ActionHandlerReturn> | ActionHandlerReturn;
  /** Longest run of one call, in ms (default: the server's tool deadline); then the model is told it timed out. */
  timeoutMs?: number;
  /**
   * Whether a person must approve a call before it runs: `true`, or a function of the call's checked input and the
   * message being answered (a function that throws counts as `true`). The reply pauses with an `approval_request`
   * part until the call is approved, denied or the request expires; a denial reaches the model as the call's result.
   */
  needsApproval?: boolean | NeedsApproval<Params>;
  /**
   * Who may decide this action's approval requests (default `'author'`): the person whose message started the
   * reply (or an approver, or an admin). `'approver'`: only someone with the `approver` or `admin` role; the
   * person who started the reply may not approve it. A reply waiting on such a request is decided by approvers
   * only, for each of its calls.
   */
  approvalBy?: 'author' | 'approver';
  /**
   * Whether running a call twice does no more than running it once (default: false). It matters for calls that
   * were approved: the server records that such a call started before its handler runs, and when the process
   * running it dies and another takes the reply over, a call that started is not run again: the model is told
   * its outcome is unknown. An idempotent action's call is run again instead.
   */
  idempotent?: boolean;
}

/** Decides per call whether it needs a person's approval. */
export type NeedsApproval<Params = Record<string, unknown>> = (
  input: Params,
  message: Memory,
) => boolean | Promise<boolean>;

/** What a provider gives (elizaOS `ProviderResult`). */
export interface ProviderResult {
  text?: string;
  values?: Record<string, unknown>;
  data?: Record<string, unknown>;
}

/** Context added before each model call (elizaOS `Provider`). */
export interface Provider {
  name: string;
  description?: string;
  /** Only when asked for by name (`composeState(message, ['NAME'])`), never by default. */
  dynamic?: boolean;
  /** Order among providers (lower first; default 0). */
  position?: number;
  /** Only when asked for by name; never in the default context. */
  private?: boolean;
  get: (
    runtime: AgentRuntime,
    message: Memory,
    state: State,
  ) => Promise<ProviderResult> | ProviderResult;
}

/** Work run after a reply (elizaOS `Evaluator`): reflection, facts, scoring. */
export interface Evaluator {
  name: string;
  description: string;
  similes?: string[];
  examples?: unknown[];
  /** Run even when the agent did not reply. */
  alwaysRun?: boolean;
  validate: (runtime: AgentRuntime, message: Memory, state?: State) => Promise<boolean> | boolean;
  handler: (
    runtime: AgentRuntime,
    message: Memory,
    state?: State,
    options?: Record<string, unknown>,
    callback?: HandlerCallback,
    responses?: Memory[],
  ) => unknown;
}

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
