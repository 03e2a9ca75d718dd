/** A tool call the model made: its id, the tool's name and the arguments as the model wrote them (JSON text). */
export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  /** The arguments, as JSON text; `{}` when the model sent none. Parsed and validated by the loop, not here. */
  input: string;
}

/** One turn of the conversation a model is asked to continue. */
export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  /** The agent's earlier turn: its text and the tools it called in it. */
  | { role: 'assistant'; content: string; toolCalls?: ModelToolCall[] }
  /** A tool's result, answering the assistant's call of the same id (JSON text or plain text). */
  | { role: 'tool'; toolCallId: string; toolName: string; content: string };

/** A tool offered to the model: the AI SDK's function tool, without its provider options. */
export interface ModelTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments: an object schema. */
  inputSchema: Record<string, unknown>;
}

/** Why a model's step ended (the AI SDK's unified finish reasons). */
export type ModelFinishReason =
  'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/** Tokens a model step used, when the model service reports them. */
export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * The versions of the model interface. `v1` is the interface before it had a version: text, whole tool calls and
 * an optional `finish`, failures thrown. `v2` is the current one ({@link ModelStreamPartV2}). A provider that does not
 * declare a version is read as `v1` and adapted in one place, {@link streamModel}.
 */
export type ModelSpecificationVersion = 'v1' | 'v2';

/**
 * One part of a model's streamed step (specification `v2`), named as the AI SDK's `LanguageModelV3StreamPart`
 * names them: text and reasoning as they come; a tool call's input as it streams (`tool-input-start`, `-delta`,
 * `-end`, sharing the call's id) and then the call once complete (`tool-call`, the one the loop runs); a failure
 * as an `error` part, which ends the step as a thrown error would; and `finish` with the reason and the usage
 * (its counts undefined when the service reported none). Unlike the AI SDK's, text and reasoning deltas carry no
 * id and no start or end parts: a step has one text and one reasoning, in order.
 *
 * A stream should end with `finish` or `error`; one that ends without either ended with `stop`. Parts after an
 * `error` are not read. A new part type does not compile until every consumer handles it (each switches over
 * `type` with a `satisfies never` default).
 */
export type ModelStreamPartV2 =
  | { type: 'text-delta'; delta: string }
  /** The model's reasoning (`reasoning_content`/`reasoning` of vLLM, DeepSeek, Ollama): never the reply's text. */
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'tool-input-start'; id: string; toolName: string }
  | { type: 'tool-input-delta'; id: string; delta: string }
  | { type: 'tool-input-end'; id: string }
  | ({ type: 'tool-call' } & ModelToolCall)
  /**
   * The step failed: `error` is what a v1 provider would have thrown (a ParleyError `MODEL_ERROR` or `TIMEOUT`
   * with a message safe for clients, or anything else, which the loop maps as it maps a thrown error).
   */
  | { type: 'error'; error: unknown }
  | { type: 'finish'; finishReason: ModelFinishReason; usage: ModelUsage };

/**
 * One part of a `v1` model's streamed step: text as it comes, each tool call once complete, then the finish
 * reason and usage. A stream without a `finish` part ended with `stop`; failures are thrown.
 */
export type ModelStreamPartV1 =
  | { type: 'text-delta'; delta: string }
  | ({ type: 'tool-call' } & ModelToolCall)
  | { type: 'finish'; finishReason: ModelFinishReason; usage?: ModelUsage };

/**
 * The parts of a `v1` model, under the name they had before versions, so that a model written then compiles
 * unchanged.
 *
 * @deprecated Write a `v2` model ({@link ModelProviderV2}) with {@link ModelStreamPartV2}.
 */
export type ModelStreamPart = ModelStreamPartV1;

/**
 * The parts of the agent's character a model may read beyond its prompt (the offline model speaks in its voice).
 * Read defensively: a character given to `createServer` in code is not validated.
 */
export interface ModelCharacter {
  name?: unknown;
  system?: unknown;
  bio?: unknown;
  messageExamples?: unknown;
  postExamples?: unknown;
}

/** What the agent loop asks a model for: the conversation so far, oldest first, and the tools it may call. */
export interface ModelRequest {
  messages: ModelMessage[];
  /** Aborting it stops the step promptly; the stream then throws `signal.reason`. */
  signal?: AbortSignal;
  /** the agent's name */
  agentName: string;
  /** The agent's character, for a model that answers from it without a prompt (the offline model). */
  character?: ModelCharacter;
  /**
   * Tools the model may call, for a model that calls tools natively. Absent or empty: none (the model answers in
   * text, and may still name actions in the `<actions>` protocol the prompt describes).
   */
  tools?: readonly ModelTool[];
}

/**
 * A source of agent replies, of either version: what `createServer` and every part of the server take, and what
 * a class may `implement`. Write a new model as a {@link ModelProviderV2}; a model written before versions (no
 * `specificationVersion`) is a {@link ModelProviderV1} and keeps working. The server reads every model's parts
 * through {@link streamModel}, which adapts a `v1` model's, never through `stream` directly.
 */
export interface ModelProvider {
  /** The interface version the model implements; absent: `v1`. */
  readonly specificationVersion?: ModelSpecificationVersion;
  readonly name: string;
  /**
   * Whether the model takes `tools` and answers with tool calls. False: actions are described in the prompt and
   * called in the elizaOS XML protocol (`<actions>`, `<params>`).
   */
  readonly callsTools: boolean;
  /** Streams one step of the reply as parts: see {@link ModelProviderV2.stream} and {@link ModelProviderV1.stream}. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPartV2 | ModelStreamPartV1>;
}

/**
 * A model in the current specification (`v2`). Implementations: {@link createElizaModel} (offline, the default)
 * and {@link createOpenAICompatibleModel}.
 *
 * @example
 * const echo: ModelProviderV2 = {
 *   specificationVersion: 'v2',
 *   name: 'echo',
 *   callsTools: false,
 *   async *stream(request) {
 *     yield { type: 'text-delta', delta: String(request.messages.at(-1)?.content) };
 *     yield { type: 'finish', finishReason: 'stop', usage: {} };
 *   },
 * };
 */
export interface ModelProviderV2 extends ModelProvider {
  readonly specificationVersion: 'v2';
  /**
   * Streams one step of the reply as parts. A failure is an `error` part (a ParleyError `MODEL_ERROR` or
   * `TIMEOUT` with a message safe for clients, `{cause}` for the log), after which the stream ends; when the
   * request's signal aborts, the stream stops promptly and throws `signal.reason`.
   */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPartV2>;
}

/**
 * A model written before the interface had a version (`v1`): `specificationVersion` absent (or `'v1'`).
 * {@link streamModel} reads its parts as `v2` parts and what it throws as an `error` part.
 */
export interface ModelProviderV1 extends ModelProvider {
  readonly specificationVersion?: 'v1';
  /**
   * Streams one step of the reply as parts. Throws ParleyError('MODEL_ERROR' | 'TIMEOUT', safe message, {cause})
   * on failure; stops promptly when the signal aborts.
   */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPartV1>;
}
