/** Shared by the tool-call stream tests: a request, a tool, and an upstream serving scripted event streams. */
import { ParleyError } from '@parley/core';
import type { ModelRequest, ModelStreamPartV2 } from '../model-provider';
import {
  type OpenAICompatibleModelOptions,
  createOpenAICompatibleModel,
} from '../openai-compatible-model';
import { type FakeOpenAIServerOptions, startFakeOpenAIServer } from './fake-openai-server';

export const request: ModelRequest = {
  agentName: 'Eliza',
  messages: [
    { role: 'system', content: 'You are Eliza.' },
    { role: 'user', content: 'Weather in Paris, then mail Bob.' },
  ],
};

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The weather in a city.',
  inputSchema: {
    type: 'object',
    properties: { location: { type: 'string' } },
    required: ['location'],
  },
};

export async function collect(
  stream: AsyncIterable<ModelStreamPartV2>,
): Promise<ModelStreamPartV2[]> {
  const parts: ModelStreamPartV2[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** The ParleyError of the stream's last part, an `error` part (the stream itself must not throw). */
export async function failureOf(stream: AsyncIterable<ModelStreamPartV2>): Promise<ParleyError> {
  const parts = await collect(stream);
  const last = parts.at(-1);
  if (last?.type !== 'error' || !ParleyError.isInstance(last.error))
    throw new Error(`expected an error part with a ParleyError, got ${JSON.stringify(last)}`);
  return last.error;
}

/** The event-stream text cut into pieces of `size` characters, wherever they fall (inside events and JSON). */
export function resplit(events: readonly string[], size: number): string[] {
  const text = events.join('');
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size)
    pieces.push(text.slice(start, start + size));
  return pieces;
}

/** Both transports of the one parser: node:http (default), and `fetch` when it is replaced. */
export const viaFetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init);

export async function upstream(
  options: FakeOpenAIServerOptions,
  model: Partial<OpenAICompatibleModelOptions> = {},
) {
  const bodies: Record<string, unknown>[] = [];
  let ended: (outcome: 'completed' | 'aborted') => void = () => {};
  const outcome = new Promise<'completed' | 'aborted'>((resolve) => (ended = resolve));
  const server = await startFakeOpenAIServer({
    ...options,
    onRequest: ({ body }) => bodies.push(body as Record<string, unknown>),
    onRequestEnd: (value) => ended(value),
  });
  const provider = createOpenAICompatibleModel({
    baseUrl: server.url,
    model: 'fake-model',
    timeoutMs: 5000,
    ...model,
  });
  return { server, model: provider, bodies, outcome, [Symbol.asyncDispose]: () => server.close() };
}
