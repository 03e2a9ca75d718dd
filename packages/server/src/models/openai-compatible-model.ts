import { createModelAgent, streamChatCompletion } from './chat-completions-stream';
import type { ModelProviderV2 } from './model-provider';

/** Options of {@link createOpenAICompatibleModel}. */
export interface OpenAICompatibleModelOptions {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1` (Ollama). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; omitted for local servers that need none. */
  apiKey?: string;
  /** The model id, e.g. `gpt-4o-mini` or `llama3.2`. */
  model: string;
  /** Longest wait, in ms, for the first piece of the reply and between pieces. Default 60000. */
  timeoutMs?: number;
  /** Carries the calls instead of node:http (proxies, instrumentation); the same parser reads the answer. */
  fetch?: typeof globalThis.fetch;
  /**
   * Whether the model is offered the agent's tools and answers with tool calls. Default true. False for a server
   * or model without tool support: `tools` are never sent, and actions go through the prompt's `<actions>` protocol.
   */
  callsTools?: boolean;
  /**
   * Whether to ask for the step's token usage at the end of the stream (`stream_options: {include_usage: true}`).
   * Default true: OpenAI, vLLM, llama.cpp server, Ollama, LM Studio and OpenRouter accept it. False for a gateway
   * that rejects fields it does not know (e.g. Azure AI model inference answering 400 "Extra parameters
   * ['stream_options'] are not allowed"); usage is then reported only by servers that send it unasked.
   */
  includeUsage?: boolean;
}

/**
 * A model behind any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, llama.cpp server, LM
 * Studio, OpenRouter), streamed over node:http with a keep-alive pool (through `fetch` when it is replaced) as
 * reasoning and text deltas, tool calls (each once complete) and a last `finish` part with the usage. A failure is
 * an `error` part: `MODEL_ERROR`, or `TIMEOUT` for silence beyond `timeoutMs`, both with a message safe for
 * clients; the request is never retried here.
 *
 * @example
 * const model = createOpenAICompatibleModel({
 *   baseUrl: 'http://localhost:11434/v1',
 *   model: 'llama3.2',
 * });
 */
export function createOpenAICompatibleModel(
  options: OpenAICompatibleModelOptions,
): ModelProviderV2 {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 60_000;
  const callsTools = options.callsTools ?? true;
  // One parser for both transports: node:http with a keep-alive pool and a plain event-stream parser by default
  // (the AI SDK's fetch, web streams and per-chunk validation cost half the server's CPU per reply, measured in
  // bench/README.md), or the replaced `fetch`.
  const url = new URL(`${baseUrl}/chat/completions`);
  const target = {
    url,
    model: options.model,
    apiKey: options.apiKey,
    agent: createModelAgent(url),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    callsTools,
    includeUsage: options.includeUsage ?? true,
  };
  return {
    specificationVersion: 'v2',
    name: `openai-compatible:${options.model}`,
    callsTools,
    stream: (request) => streamChatCompletion(target, request, timeoutMs),
  };
}
