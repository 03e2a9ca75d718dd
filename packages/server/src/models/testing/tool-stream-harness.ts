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

/** Every part of a stream, the `tool-input-*` parts too. */
export async function collectAll(
  stream: AsyncIterable<ModelStreamPartV2>,
): Promise<ModelStreamPartV2[]> {
  const parts: ModelStreamPartV2[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const isToolInput = (part: ModelStreamPartV2) =>
  part.type === 'tool-input-start' ||
  part.type === 'tool-input-delta' ||
  part.type === 'tool-input-end';

/**
 * The parts of a stream without its `tool-input-*` parts (what the shapes list), after checking those against the
 * calls: each call's input parts are one start with its id and name, deltas that add up to its arguments, then one
 * end, all before the call.
 */
export async function collect(
  stream: AsyncIterable<ModelStreamPartV2>,
): Promise<ModelStreamPartV2[]> {
  const parts = await collectAll(stream);
  expectToolInputOfCalls(parts);
  return parts.filter((part) => !isToolInput(part));
}

/** Throws unless every call's `tool-input-*` parts are as {@link collect} says, and no others exist. */
export function expectToolInputOfCalls(parts: readonly ModelStreamPartV2[]): void {
  const seen = new Set<string>();
  for (const [at, part] of parts.entries()) {
    if (part.type !== 'tool-call') continue;
    const own = parts
      .slice(0, at)
      .filter((input) => isToolInput(input) && 'id' in input && input.id === part.toolCallId);
    const [start, ...rest] = own;
    const end = rest.pop();
    const text = rest
      .map((input) => (input.type === 'tool-input-delta' ? input.delta : '?'))
      .join('');
    const fits =
      start?.type === 'tool-input-start' &&
      start.toolName === part.toolName &&
      end?.type === 'tool-input-end' &&
      rest.every((input) => input.type === 'tool-input-delta') &&
      (text === part.input || (text.trim() === '' && part.input === '{}'));
    if (!fits || seen.has(part.toolCallId)) {
      throw new Error(`tool input parts of ${part.toolCallId}: ${JSON.stringify(own)}`);
    }
    seen.add(part.toolCallId);
  }
  const strays = parts.filter((part) => isToolInput(part) && 'id' in part && !seen.has(part.id));
  if (strays.length > 0) throw new Error(`tool input parts of no call: ${JSON.stringify(strays)}`);
}

/** The ParleyError of the stream's last part, an `error` part (the stream itself must not throw). */
export async function failureOf(stream: AsyncIterable<ModelStreamPartV2>): Promise<ParleyError> {
  const parts = await collectAll(stream);
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
