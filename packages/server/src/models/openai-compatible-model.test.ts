import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ParleyError } from '@parley/core';
import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamPartV2 } from './model-provider';
import { createOpenAICompatibleModel } from './openai-compatible-model';
import { type FakeOpenAIServerOptions, startFakeOpenAIServer } from './testing/fake-openai-server';

const API_KEY = 'sk-test-secret-key';
const request: ModelRequest = {
  agentName: 'Eliza',
  messages: [
    { role: 'system', content: 'You are Eliza.' },
    { role: 'user', content: 'Hello there' },
  ],
};

/** The text deltas of a stream of parts, in order; an `error` part is thrown, as the agent loop throws it. */
async function* textOf(stream: AsyncIterable<ModelStreamPartV2>): AsyncGenerator<string> {
  for await (const part of stream) {
    if (part.type === 'text-delta') yield part.delta;
    if (part.type === 'error') throw part.error;
  }
}

async function collect(stream: AsyncIterable<ModelStreamPartV2>): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of textOf(stream)) pieces.push(piece);
  return pieces;
}

/** The ParleyError of the stream's last part, an `error` part (the stream itself must not throw). */
async function failureOf(stream: AsyncIterable<ModelStreamPartV2>): Promise<ParleyError> {
  const parts: ModelStreamPartV2[] = [];
  for await (const part of stream) parts.push(part);
  const last = parts.at(-1);
  if (last?.type !== 'error' || !ParleyError.isInstance(last.error))
    throw new Error(`expected an error part with a ParleyError, got ${JSON.stringify(last)}`);
  expect(parts.filter((part) => part.type === 'error')).toHaveLength(1);
  return last.error;
}

/** A one-route upstream whose answer a test writes itself. */
async function rawUpstream(answer: (response: ServerResponse) => void) {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const SSE_HEADERS = { 'content-type': 'text/event-stream' };
const chunkEvent = (content: string) =>
  `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** Both transports of the one parser: node:http (default), and `fetch` when it is replaced. */
const paths: [string, typeof globalThis.fetch | undefined][] = [
  ['over node:http', undefined],
  ['through a replaced fetch', (input, init) => globalThis.fetch(input, init)],
];

describe.each(paths)('createOpenAICompatibleModel %s', (_path, fetch) => {
  /** Starts a fake upstream that reports how each request ended. */
  async function upstream(options: FakeOpenAIServerOptions) {
    let ended: (outcome: 'completed' | 'aborted') => void = () => {};
    const outcome = new Promise<'completed' | 'aborted'>((resolve) => (ended = resolve));
    const server = await startFakeOpenAIServer({
      ...options,
      onRequestEnd: (value) => ended(value),
    });
    const model = createOpenAICompatibleModel({
      baseUrl: server.url,
      apiKey: API_KEY,
      model: 'fake-model',
      timeoutMs: 200,
      ...(fetch ? { fetch } : {}),
    });
    return { server, model, outcome, [Symbol.asyncDispose]: () => server.close() };
  }

  it('streams the reply in the pieces the server sends, with the conversation and key', async () => {
    const seen: { headers: Record<string, unknown>; body: unknown }[] = [];
    await using fake = await upstream({
      reply: (messages) => `You said: ${String(messages.at(-1)?.content)}. Tell me more.`,
      chunkSize: 5,
      onRequest: (received) => seen.push(received),
    });
    const parts: ModelStreamPartV2[] = [];
    for await (const part of fake.model.stream(request)) parts.push(part);
    const pieces = parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : []));
    expect(pieces.join('')).toBe('You said: Hello there. Tell me more.');
    expect(pieces.length).toBeGreaterThan(1);
    // The text, then one finish part, last.
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', usage: {} });
    expect(parts.filter((part) => part.type !== 'text-delta')).toHaveLength(1);
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen[0]?.body).toMatchObject({
      model: 'fake-model',
      stream: true,
      messages: [
        { role: 'system', content: 'You are Eliza.' },
        { role: 'user', content: 'Hello there' },
      ],
    });
    expect(await fake.outcome).toBe('completed');
  });

  it('turns an HTTP 500 into MODEL_ERROR without the upstream body or key, and does not retry', async () => {
    await using fake = await upstream({ mode: 'fail' });
    const error = await failureOf(fake.model.stream(request));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.status).toBe(502);
    expect(error.message).toBe('The model service answered with HTTP 500');
    expect(error.message).not.toContain('internal detail');
    expect(APICallError.isInstance(error.cause)).toBe(true);
    expect(fake.server.requests).toBe(1);
  });

  it('turns a server that stays silent into TIMEOUT and hangs up on it', async () => {
    await using fake = await upstream({ mode: 'slow', delayMs: 60_000 });
    const error = await failureOf(fake.model.stream(request));
    expect(error.code).toBe('TIMEOUT');
    expect(error.status).toBe(504);
    expect(await fake.outcome).toBe('aborted');
  });

  it('times out when the server stalls between pieces, after giving the ones it sent', async () => {
    await using fake = await upstream({ reply: 'first piece, then silence', chunkDelayMs: 60_000 });
    const pieces: string[] = [];
    const error: unknown = await (async () => {
      for await (const piece of textOf(fake.model.stream(request))) pieces.push(piece);
    })().catch((rejection: unknown) => rejection);
    expect(pieces).toEqual(['first pi']);
    expect(ParleyError.isInstance(error) && error.code).toBe('TIMEOUT');
    expect(await fake.outcome).toBe('aborted');
  });

  it('does not count the time the caller spends on a piece as model silence', async () => {
    await using fake = await upstream({ reply: 'two pieces here' });
    const pieces: string[] = [];
    for await (const piece of textOf(fake.model.stream(request))) {
      // A real pause longer than the 200 ms timeout is the behaviour under test, not a wait for an event.
      if (pieces.length === 0) await new Promise((resolve) => setTimeout(resolve, 300));
      pieces.push(piece);
    }
    expect(pieces.join('')).toBe('two pieces here');
  });

  it('turns a refused connection into MODEL_ERROR', async () => {
    const closed = await startFakeOpenAIServer();
    await closed.close();
    const model = createOpenAICompatibleModel({
      baseUrl: closed.url,
      apiKey: API_KEY,
      model: 'm',
      ...(fetch ? { fetch } : {}),
    });
    const error = await failureOf(model.stream(request));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toBe('The model service could not be reached');
  });

  it('turns an error reported inside the stream into MODEL_ERROR, after the pieces before it', async () => {
    await using raw = await rawUpstream((response) => {
      response.writeHead(200, SSE_HEADERS);
      response.end(
        chunkEvent('partial ') +
          `data: ${JSON.stringify({ error: { message: 'upstream overloaded: internal detail', type: 'server_error' } })}\n\n`,
      );
    });
    const model = createOpenAICompatibleModel({
      baseUrl: raw.url,
      model: 'm',
      ...(fetch ? { fetch } : {}),
    });
    const pieces: string[] = [];
    const error: unknown = await (async () => {
      for await (const piece of textOf(model.stream(request))) pieces.push(piece);
    })().catch((rejection: unknown) => rejection);
    expect(pieces).toEqual(['partial ']);
    expect(ParleyError.isInstance(error) && error.code).toBe('MODEL_ERROR');
    expect((error as Error).message).toBe('The model service reported an error');
  });

  it('turns a connection cut mid-answer into MODEL_ERROR', async () => {
    await using raw = await rawUpstream((response) => {
      response.writeHead(200, SSE_HEADERS);
      response.write(chunkEvent('half an ans'));
      setTimeout(() => response.destroy(), 20);
    });
    const model = createOpenAICompatibleModel({
      baseUrl: raw.url,
      model: 'm',
      timeoutMs: 5000,
      ...(fetch ? { fetch } : {}),
    });
    const error = await failureOf(model.stream(request));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).not.toContain('internal');
  });

  it('turns a malformed stream into MODEL_ERROR', async () => {
    await using fake = await upstream({ mode: 'malformed' });
    const error = await failureOf(fake.model.stream(request));
    expect(error.code).toBe('MODEL_ERROR');
    expect(error.message).toBe('The model service sent a malformed response');
  });

  it('cancels the HTTP request when the signal aborts mid-stream', async () => {
    await using fake = await upstream({
      reply: 'a long answer that never ends',
      chunkDelayMs: 60_000,
    });
    const controller = new AbortController();
    const reason = new Error('client went away');
    const stream = fake.model.stream({ ...request, signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({
      done: false,
      value: { type: 'text-delta', delta: 'a long a' },
    });
    const pending = iterator.next();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(await fake.outcome).toBe('aborted');
  });

  it('cancels the HTTP request when the caller stops reading', async () => {
    await using fake = await upstream({
      reply: 'a long answer that never ends',
      chunkDelayMs: 60_000,
    });
    for await (const part of fake.model.stream(request)) {
      expect(part).toEqual({ type: 'text-delta', delta: 'a long a' });
      break;
    }
    expect(await fake.outcome).toBe('aborted');
  });

  it('sends nothing when the signal is already aborted', async () => {
    await using fake = await upstream({});
    const reason = new Error('too late');
    const stream = fake.model.stream({ ...request, signal: AbortSignal.abort(reason) });
    await expect(collect(stream)).rejects.toBe(reason);
    expect(fake.server.requests).toBe(0);
  });
});
