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
 * One part of a model's streamed step, named as the AI SDK's `LanguageModelV3StreamPart` names them: text as it
 * comes, each tool call once complete, then the finish reason and usage. A stream without a `finish` part ended
 * with `stop`.
 */
export type ModelStreamPart =
  | { type: 'text-delta'; delta: string }
  | ({ type: 'tool-call' } & ModelToolCall)
  | { type: 'finish'; finishReason: ModelFinishReason; usage?: ModelUsage };

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
 * A source of agent replies. Implementations: {@link createElizaModel} (offline, the default) and
 * {@link createOpenAICompatibleModel}.
 */
export interface ModelProvider {
  readonly name: string;
  /**
   * Whether the model takes `tools` and answers with tool calls. False: actions are described in the prompt and
   * called in the elizaOS XML protocol (`<actions>`, `<params>`).
   */
  readonly callsTools: boolean;
  /**
   * Streams one step of the reply as parts. Throws ParleyError('MODEL_ERROR' | 'TIMEOUT', safe message, {cause})
   * on failure; stops promptly when the signal aborts.
   */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}
