import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ModelProvider } from './model-provider';
import { streamModelReply } from './stream-model-reply';

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
  /** Replaces the global fetch (proxies, instrumentation). */
  fetch?: typeof globalThis.fetch;
}

/**
 * A model behind any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, llama.cpp server, LM
 * Studio, OpenRouter), streamed through the AI SDK. Failures throw `MODEL_ERROR`, silence beyond `timeoutMs`
 * throws `TIMEOUT`, both with a message safe for clients; the request is never retried here.
 *
 * @example
 * const model = createOpenAICompatibleModel({
 *   baseUrl: 'http://localhost:11434/v1',
 *   model: 'llama3.2',
 * });
 */
export function createOpenAICompatibleModel(options: OpenAICompatibleModelOptions): ModelProvider {
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: options.baseUrl.replace(/\/+$/, ''),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const languageModel = provider.chatModel(options.model);
  const timeoutMs = options.timeoutMs ?? 60_000;
  return {
    name: `openai-compatible:${options.model}`,
    stream: (request) => streamModelReply(languageModel, request, timeoutMs),
  };
}
