/** One turn of the conversation a model is asked to continue. */
export interface ModelMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What the agent runtime asks a model for: the conversation so far, oldest first. */
export interface ModelRequest {
  messages: ModelMessage[];
  /** Aborting it stops the reply promptly; the stream then throws `signal.reason`. */
  signal?: AbortSignal;
  /** the agent's name */
  agentName: string;
}

/**
 * A source of agent replies. Implementations: {@link createElizaModel} (offline, the default) and
 * {@link createOpenAICompatibleModel}.
 */
export interface ModelProvider {
  readonly name: string;
  /** Streams the reply text in pieces. Rejects/throws ParleyError('MODEL_ERROR' | 'TIMEOUT', safe message, {cause}) on failure; stops promptly when signal aborts. */
  stream(request: ModelRequest): AsyncIterable<string>;
}
