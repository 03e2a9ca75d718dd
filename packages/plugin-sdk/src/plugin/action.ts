import type { AgentRuntime } from './runtime';

/**
 * What an agent acts with, in the shapes of `@elizaos/core` 1.x: actions the model may call, providers that add
 * context before each model call, evaluators that run after a reply. An elizaOS plugin's `actions`, `providers`
 * and `evaluators` load as they are; {@link defineAction}, {@link defineProvider} and {@link defineEvaluator}
 * type new ones.
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

/**
 * Declares an action. With a zod schema as `parameters`, `options.parameters` is typed by it.
 *
 * @example
 * defineAction({
 *   name: 'CALCULATE',
 *   description: 'Evaluates an arithmetic expression',
 *   parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
 *   handler: async (_runtime, _message, _state, options) => ({ success: true, text: String(options?.parameters?.expression) }),
 * });
 */
export function defineAction<Params = Record<string, unknown>>(
  action: Omit<Action<Params>, 'parameters'> & {
    parameters?: ParameterSchema<Params> | ActionParameters;
  },
): Action {
  return action as unknown as Action;
}

/** Declares a provider. */
export function defineProvider(provider: Provider): Provider {
  return provider;
}

/** Declares an evaluator. */
export function defineEvaluator(evaluator: Evaluator): Evaluator {
  return evaluator;
}
