import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { defineAction, type Plugin } from '@parley/plugin-sdk';
import { generateText, streamText } from 'ai';
import { randomUUID as randomUUIDv4 } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createMetrics } from '../metrics';
import { createOpenAICompatibleModel } from '../models';
import {
  DONE_EVENT,
  toChunkEvent,
  toToolCallEvents,
} from '../models/testing/chat-completion-bodies';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../models/testing/fake-openai-server';

const TOKEN = 'openai-face-secret-token';

/** The agent's one action: the model calls it for the weather. */
const weather: Plugin = {
  name: 'weather',
  description: 'Weather lookups',
  actions: [
    defineAction({
      name: 'LOOKUP',
      description: 'Looks up the weather of a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
      handler: (_runtime, _message, _state, options) => ({
        success: true,
        text: `${String(options?.parameters?.city)}: hot`,
      }),
    }),
    defineAction({
      name: 'DEPLOY',
      description: 'Deploys the app',
      parameters: { type: 'object', properties: { target: { type: 'string' } } },
      needsApproval: true,
      handler: (_runtime, _message, _state, options) => ({
        success: true,
        text: `Deployed to ${String(options?.parameters?.target)}`,
      }),
    }),
  ],
};

interface ChatMessage {
  role: string;
  content: unknown;
}
const textOf = (message: ChatMessage | undefined) =>
  typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content);

/** A streamed text answer in pieces of `size`, its finish, the usage the model reports, then `[DONE]`. */
function textEvents(
  text: string,
  usage: { prompt_tokens: number; completion_tokens: number },
  size = 6,
) {
  const events: string[] = [];
  for (let at = 0; at < text.length; at += size) {
    const delta =
      at === 0
        ? { role: 'assistant', content: text.slice(at, at + size) }
        : { content: text.slice(at, at + size) };
    events.push(toChunkEvent({ choices: [{ index: 0, delta, finish_reason: null }] }));
  }
  events.push(toChunkEvent({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  events.push(toChunkEvent({ choices: [], usage }));
  events.push(DONE_EVENT);
  return events;
}

/** A long answer, for cancelling mid-stream: 400 pieces. */
const LONG = 'word '.repeat(400);

describe('the OpenAI-compatible face, driven by the openai client and the AI SDK', () => {
  let upstream: FakeOpenAIServer;
  let slowUpstream: FakeOpenAIServer;
  let test: TestServer;
  let slow: TestServer;
  let client: OpenAI;
  let agentId: string;
  let agentName: string;
  const metrics = createMetrics({ processMetrics: false });
  const prompts: ChatMessage[][] = [];
  const slowEnds: ('completed' | 'aborted')[] = [];
  let slowEnded: () => void = () => undefined;
  let slowStarted: () => void = () => undefined;

  beforeAll(async () => {
    upstream = await startFakeOpenAIServer({
      // Pieces a millisecond apart arrive as a live model's tokens do: each is its own chunk.
      chunkDelayMs: 1,
      onRequest: ({ body }) => prompts.push((body as { messages: ChatMessage[] }).messages),
      events: (body) => {
        const { messages, tools } = body as { messages: ChatMessage[]; tools?: unknown[] };
        const last = messages.at(-1);
        if (last?.role === 'tool') {
          return textEvents(`The tool said ${textOf(last)}`, {
            prompt_tokens: 20,
            completion_tokens: 5,
          });
        }
        const text = textOf(last);
        if (tools && /deploy/i.test(text)) {
          return toToolCallEvents(
            [{ id: 'call_deploy', name: 'DEPLOY', arguments: '{"target":"prod"}' }],
            { usage: { prompt_tokens: 13, completion_tokens: 3 } },
          );
        }
        if (tools && /weather/i.test(text)) {
          return toToolCallEvents(
            [{ id: 'call_1', name: 'LOOKUP', arguments: '{"city":"Paris"}' }],
            {
              usage: { prompt_tokens: 13, completion_tokens: 3 },
            },
          );
        }
        // The answer names the message answered: a reply to another message would show.
        const asked = /(?:^|\n)[^\n]*?:\s*([^\n]*)$/.exec(text)?.[1] ?? text;
        return textEvents(`You said: ${asked.trim()}`, { prompt_tokens: 11, completion_tokens: 7 });
      },
    });
    slowUpstream = await startFakeOpenAIServer({
      reply: LONG,
      chunkSize: 5,
      chunkDelayMs: 2,
      onRequest: () => slowStarted(),
      onRequestEnd: (outcome) => {
        slowEnds.push(outcome);
        slowEnded();
      },
    });
    const model = createOpenAICompatibleModel({
      baseUrl: upstream.url,
      model: 'fake',
      timeoutMs: 10_000,
    });
    const slowModel = createOpenAICompatibleModel({
      baseUrl: slowUpstream.url,
      model: 'fake',
      timeoutMs: 10_000,
    });
    [test, slow] = await Promise.all([
      startTestServer({ model, plugins: [weather], authToken: TOKEN, metrics }),
      startTestServer({ model: slowModel, authToken: TOKEN }),
    ]);
    client = new OpenAI({ baseURL: `${test.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    agentId = test.server.agents.defaultAgent.agentId;
    agentName = test.server.agents.defaultAgent.character.name;
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
    await slow?.[Symbol.asyncDispose]();
    await upstream?.close();
    await slowUpstream?.close();
  });

  /** A channel's stored messages, oldest first, read through the channel API. */
  async function history(server: TestServer, channelId: string) {
    const response = await fetch(
      `${server.url}/api/messaging/channels/${channelId}/messages?limit=100`,
      {
        headers: { 'x-api-key': TOKEN },
      },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data: { messages: { content: string; author_id: string }[] };
    };
    return body.data.messages.slice().reverse();
  }

  /** What a raw request to `/v1` answers. */
  async function raw(path: string, init: RequestInit = {}, server = test) {
    const response = await fetch(`${server.url}/v1${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('lists the agents as models, by id, and finds one by id or name; an unknown one is 404 model_not_found', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toContainEqual(
      expect.objectContaining({ id: agentId, object: 'model', owned_by: 'parley' }),
    );
    expect(await client.models.retrieve(agentId)).toMatchObject({ id: agentId, object: 'model' });
    expect(await client.models.retrieve(agentName)).toMatchObject({ id: agentId });
    const error = await client.models.retrieve('no-such-agent').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({
      status: 404,
      code: 'model_not_found',
      type: 'invalid_request_error',
      param: 'model',
    });
  });

  it('refuses a missing or wrong key with 401 in OpenAI shape, and takes the Bearer key and x-api-key alike', async () => {
    const wrong = new OpenAI({ baseURL: `${test.url}/v1`, apiKey: 'not-the-token', maxRetries: 0 });
    const error = await wrong.models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    const missing = await fetch(`${test.url}/v1/models`);
    expect(missing.status).toBe(401);
    const body = await missing.json();
    expect(body).toEqual({
      error: {
        message: expect.any(String),
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    expect(JSON.stringify(body)).not.toContain(TOKEN);
    const byHeader = await fetch(`${test.url}/v1/models`, { headers: { 'x-api-key': TOKEN } });
    expect(byHeader.status).toBe(200);
  });

  it('chat completion: a new channel is seeded with the earlier turns, only the last is answered, usage is the model’s', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: agentId,
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'My name is Ada.' },
          { role: 'assistant', content: 'Hello Ada.' },
          { role: 'user', content: 'What is my name?' },
        ],
      })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'You said: What is my name?' },
    });
    expect(data.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    const replyId = response.headers.get('x-parley-reply-id');
    expect(data.id).toBe(`chatcmpl-${replyId}`);
    const channelId = response.headers.get('x-parley-channel-id')!;
    const messages = await history(test, channelId);
    expect(messages.map((m) => m.content)).toEqual([
      'My name is Ada.',
      'Hello Ada.',
      'What is my name?',
      'You said: What is my name?',
    ]);
    expect(messages[1]!.author_id).toBe(agentId);
    // The conversation's channel is a channel like any other: listed, so the chat page shows it.
    const listed = await fetch(`${test.url}/api/messaging/channels?limit=100`, {
      headers: { 'x-api-key': TOKEN },
    });
    expect(JSON.stringify(await listed.json())).toContain(channelId);
    // The model read the seeded turns as the conversation; the caller's system message is not the agent's.
    const prompt = JSON.stringify(prompts.at(-1));
    expect(prompt).toContain('My name is Ada.');
    expect(prompt).toContain('Hello Ada.');
    expect(prompt).not.toContain('You are terse.');
  });

  it('chat completion stream: chunks, a usage chunk, [DONE]; the same channel goes on without seeding again', async () => {
    const first = await client.chat.completions
      .create({ model: agentId, messages: [{ role: 'user', content: 'One' }] })
      .withResponse();
    const channelId = first.response.headers.get('x-parley-channel-id')!;
    const stream = await client.chat.completions.create(
      {
        model: agentName,
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          { role: 'user', content: 'One' },
          { role: 'assistant', content: 'You said: One' },
          { role: 'user', content: 'Two, streamed' },
        ],
      },
      { headers: { 'X-Parley-Channel-Id': channelId } },
    );
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('You said: Two, streamed');
    expect(
      chunks.filter((chunk) => (chunk.choices[0]?.delta.content ?? '') !== '').length,
    ).toBeGreaterThan(1);
    expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe(
      'stop',
    );
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    });
    // The client's chat stream helper accumulates the chunks into one completion.
    const accumulated = await client.chat.completions
      .stream(
        { model: agentId, messages: [{ role: 'user', content: 'Helped' }] },
        { headers: { 'X-Parley-Channel-Id': randomUUIDv4() } },
      )
      .finalChatCompletion();
    expect(accumulated.choices[0]!.message.content).toBe('You said: Helped');
    expect((await history(test, channelId)).map((m) => m.content)).toEqual([
      'One',
      'You said: One',
      'Two, streamed',
      'You said: Two, streamed',
    ]);
  });

  it('the agent’s own tool runs on the server and shows in the text; usage sums both model steps', async () => {
    const completion = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    });
    const content = completion.choices[0]!.message.content!;
    expect(content).toContain('[tool LOOKUP({"city":"Paris"}) → ');
    expect(content).toContain('Paris: hot');
    expect(content.indexOf('[tool LOOKUP')).toBeLessThan(content.indexOf('The tool said'));
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    expect(completion.usage).toEqual({ prompt_tokens: 33, completion_tokens: 8, total_tokens: 41 });
  });

  it('a call that needs approval ends the answer with a note; approved through the channel API, the reply goes on', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({
        model: agentId,
        stream: true,
        messages: [{ role: 'user', content: 'Please deploy' }],
      })
      .withResponse();
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
    }
    const replyId = response.headers.get('x-parley-reply-id')!;
    const channelId = response.headers.get('x-parley-channel-id')!;
    expect(text).toContain('[waiting for a person to approve DEPLOY');
    expect(text).toContain(`/api/messaging/replies/${replyId}/approvals`);
    expect(finish).toBe('stop');
    const decided = await fetch(`${test.url}/api/messaging/replies/${replyId}/approvals`, {
      method: 'POST',
      headers: { 'x-api-key': TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ toolCallId: 'call_deploy', approved: true }),
    });
    expect(decided.status).toBe(202);
    // The reply goes on and is stored in the conversation's channel.
    const events = await fetch(`${test.url}/api/messaging/replies/${replyId}/events`, {
      headers: { 'x-api-key': TOKEN },
    });
    expect(await events.text()).toContain('Deployed to prod');
    const contents = (await history(test, channelId)).map((m) => m.content);
    expect(contents[0]).toBe('Please deploy');
    expect(contents.at(-1)).toContain('The tool said');
  });

  it('a conversation named by `user` (or metadata.conversation_id) keeps one channel; another name has its own', async () => {
    const ask = (user: string, content: string) =>
      client.chat.completions
        .create({ model: agentId, user, messages: [{ role: 'user', content }] })
        .withResponse();
    const [a1, b1] = await Promise.all([ask('ada', 'first of ada'), ask('bob', 'first of bob')]);
    const a2 = await ask('ada', 'second of ada');
    const channel = (r: typeof a1) => r.response.headers.get('x-parley-channel-id');
    expect(channel(a1)).toBe(channel(a2));
    expect(channel(a1)).not.toBe(channel(b1));
    expect((await history(test, channel(a2)!)).map((m) => m.content)).toEqual([
      'first of ada',
      'You said: first of ada',
      'second of ada',
      'You said: second of ada',
    ]);
    const viaMetadata = await client.chat.completions
      .create({
        model: agentId,
        metadata: { conversation_id: 'ada' },
        messages: [{ role: 'user', content: 'x' }],
      })
      .withResponse();
    expect(channel(viaMetadata)).toBe(channel(a1));
  });

  it('requests of one conversation released together seed its new channel once', async () => {
    const earlier = [
      { role: 'user' as const, content: 'I live in Lyon.' },
      { role: 'assistant' as const, content: 'Lyon is lovely.' },
    ];
    const answers = await Promise.all(
      ['Where do I live?', 'What did you say?', 'Is it big?'].map((content) =>
        client.chat.completions
          .create({
            model: agentId,
            user: 'seeded-together',
            messages: [...earlier, { role: 'user', content }],
          })
          .withResponse(),
      ),
    );
    const channels = new Set(
      answers.map(({ response }) => response.headers.get('x-parley-channel-id')),
    );
    expect(channels.size).toBe(1);
    const contents = (await history(test, [...channels][0]!)).map((m) => m.content);
    expect(contents.slice(0, 2)).toEqual(['I live in Lyon.', 'Lyon is lovely.']);
    expect(contents.filter((c) => c === 'I live in Lyon.')).toHaveLength(1);
    expect(contents).toHaveLength(2 + 3 * 2);
  });

  it('requests released together each get their own channel and answer', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        client.chat.completions
          .create({ model: agentId, messages: [{ role: 'user', content: `together ${i}` }] })
          .withResponse(),
      ),
    );
    answers.forEach(({ data }, i) =>
      expect(data.choices[0]!.message.content).toBe(`You said: together ${i}`),
    );
    const channels = new Set(
      answers.map(({ response }) => response.headers.get('x-parley-channel-id')),
    );
    expect(channels.size).toBe(8);
  });

  it('tries of one Idempotency-Key released together post once and answer with one reply', async () => {
    const key = `key-${Date.now()}`;
    const tries = await Promise.all(
      [1, 2, 3].map(() =>
        client.chat.completions
          .create(
            { model: agentId, messages: [{ role: 'user', content: 'only once' }] },
            { headers: { 'Idempotency-Key': key } },
          )
          .withResponse(),
      ),
    );
    const ids = new Set(tries.map(({ data }) => data.id));
    expect(ids.size).toBe(1);
    const channelId = tries[0]!.response.headers.get('x-parley-channel-id')!;
    expect((await history(test, channelId)).map((m) => m.content)).toEqual([
      'only once',
      'You said: only once',
    ]);
  });

  it('responses: a string input, then previous_response_id continues the same channel, streamed and not', async () => {
    const first = await client.responses
      .create({ model: agentId, input: 'Hello there', instructions: 'Be brief.' })
      .withResponse();
    expect(first.data).toMatchObject({
      object: 'response',
      status: 'completed',
      output_text: 'You said: Hello there',
      usage: { input_tokens: 11, output_tokens: 7, total_tokens: 18 },
    });
    expect(first.data.output[0]).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'You said: Hello there' }],
    });
    const channelId = first.response.headers.get('x-parley-channel-id')!;

    const second = await client.responses.create({
      model: agentId,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'And again' }] }],
      previous_response_id: first.data.id,
    });
    expect(second.output_text).toBe('You said: And again');
    expect(second.previous_response_id).toBe(first.data.id);

    const stream = await client.responses.create({
      model: agentId,
      input: 'Streamed at last',
      previous_response_id: second.id,
      stream: true,
    });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_text.done');
    const deltas = events.flatMap((event) =>
      event.type === 'response.output_text.delta' ? [event.delta] : [],
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('You said: Streamed at last');
    const completed = events.at(-1) as {
      response: { id: string; output_text: string; usage: unknown };
    };
    expect(completed.response.usage).toMatchObject({
      input_tokens: 11,
      output_tokens: 7,
      total_tokens: 18,
    });
    const sequence = events.map((event) => event.sequence_number);
    expect(sequence).toEqual(sequence.map((_, i) => i));

    expect((await history(test, channelId)).map((m) => m.content)).toEqual([
      'Hello there',
      'You said: Hello there',
      'And again',
      'You said: And again',
      'Streamed at last',
      'You said: Streamed at last',
    ]);

    // The client's stream helper rebuilds the response from the events: they must agree with each other.
    const helper = client.responses.stream({
      model: agentId,
      input: 'Through the helper',
      previous_response_id: completed.response.id,
    });
    const helped = await helper.finalResponse();
    expect(helped.output_text).toBe('You said: Through the helper');
    expect(helped.status).toBe('completed');
  });

  it('bad requests are 400s in OpenAI’s shape, naming the field; unknown ids and paths are 404s', async () => {
    const noMessages = await client.chat.completions
      .create({ model: agentId } as never)
      .catch((e: unknown) => e);
    expect(noMessages).toBeInstanceOf(OpenAI.BadRequestError);
    expect(noMessages).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      param: 'messages',
    });

    const lastNotUser = await raw('/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: agentId, messages: [{ role: 'assistant', content: 'hi' }] }),
    });
    expect(lastNotUser).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', param: 'messages[0].role' } },
    });

    const image = await raw('/chat/completions', {
      method: 'POST',
      body: JSON.stringify({
        model: agentId,
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x' } }] },
        ],
      }),
    });
    expect(image).toMatchObject({
      status: 400,
      body: { error: { param: 'messages[0].content[0]' } },
    });

    const notJson = await raw('/chat/completions', { method: 'POST', body: '{"model":' });
    expect(notJson).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error' } },
    });

    const twoChoices = await raw('/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: agentId, n: 2, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(twoChoices).toMatchObject({ status: 400, body: { error: { param: 'n' } } });

    const unknownModel = await client.chat.completions
      .create({ model: 'gpt-nonexistent', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(unknownModel).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknownModel).toMatchObject({ status: 404, code: 'model_not_found' });

    const unknownPrevious = await client.responses
      .create({
        model: agentId,
        input: 'hi',
        previous_response_id: 'resp_0123456789abcdef0123456789abcdef',
      })
      .catch((e: unknown) => e);
    expect(unknownPrevious).toMatchObject({
      status: 404,
      code: 'previous_response_not_found',
      param: 'previous_response_id',
    });

    const badChannel = await raw('/chat/completions', {
      method: 'POST',
      headers: { 'x-parley-channel-id': 'not-a-uuid' },
      body: JSON.stringify({ model: agentId, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(badChannel).toMatchObject({
      status: 400,
      body: { error: { param: 'X-Parley-Channel-Id' } },
    });

    const nowhere = await raw('/embeddings', { method: 'POST', body: '{}' });
    expect(nowhere).toMatchObject({
      status: 404,
      body: { error: { type: 'invalid_request_error', code: 'not_found' } },
    });

    const tooLarge = await raw('/chat/completions', {
      method: 'POST',
      body: JSON.stringify({
        model: agentId,
        messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }],
      }),
    });
    expect(tooLarge).toMatchObject({ status: 413, body: { error: { code: 'request_too_large' } } });

    // None of these left a 500, or a message in any channel the caller could not name.
    const health = await fetch(`${test.url}/api/server/health`);
    expect(health.status).toBe(200);
  });

  it('closing a streamed answer cancels the reply: the model request is aborted and nothing is stored', async () => {
    const ended = new Promise<void>((resolve) => (slowEnded = resolve));
    const slowClient = new OpenAI({ baseURL: `${slow.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
    const { data: stream, response } = await slowClient.chat.completions
      .create({
        model: slow.server.agents.defaultAgent.agentId,
        stream: true,
        messages: [{ role: 'user', content: 'Talk a lot' }],
      })
      .withResponse();
    const channelId = response.headers.get('x-parley-channel-id')!;
    const replyId = response.headers.get('x-parley-reply-id')!;
    let received = '';
    for await (const chunk of stream) {
      received += chunk.choices[0]?.delta.content ?? '';
      if (received.length > 0) break; // leaving the loop aborts the request
    }
    await ended;
    expect(slowEnds).toEqual(['aborted']);
    const events = await fetch(`${slow.url}/api/messaging/replies/${replyId}/events`, {
      headers: { 'x-api-key': TOKEN },
    });
    const text = await events.text();
    expect(text).toContain('"code":"CANCELLED"');
    expect((await history(slow, channelId)).map((m) => m.content)).toEqual(['Talk a lot']);
  });

  it('aborting a non-streamed request cancels its reply too', async () => {
    slowEnds.length = 0;
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    const ended = new Promise<void>((resolve) => (slowEnded = resolve));
    const channelId = crypto.randomUUID();
    const controller = new AbortController();
    const request = fetch(`${slow.url}/v1/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-parley-channel-id': channelId,
      },
      body: JSON.stringify({
        model: slow.server.agents.defaultAgent.agentId,
        messages: [{ role: 'user', content: 'Answer slowly' }],
      }),
    }).catch((error: unknown) => error);
    await started;
    controller.abort();
    expect(await request).toMatchObject({ name: 'AbortError' });
    await ended;
    expect(slowEnds).toEqual(['aborted']);
    expect((await history(slow, channelId)).map((m) => m.content)).toEqual(['Answer slowly']);
  });

  it('the AI SDK’s OpenAI-compatible provider holds the conversation too, with generateText and streamText', async () => {
    const parley = createOpenAICompatible({
      name: 'parley',
      baseURL: `${test.url}/v1`,
      apiKey: TOKEN,
      includeUsage: true,
    });
    const generated = await generateText({
      model: parley.chatModel(agentId),
      prompt: 'From the AI SDK',
    });
    expect(generated.text).toBe('You said: From the AI SDK');
    expect(generated.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });

    const streamed = streamText({
      model: parley.chatModel(agentId),
      messages: [
        { role: 'user', content: 'Earlier' },
        { role: 'assistant', content: 'You said: Earlier' },
        { role: 'user', content: 'Streamed by the AI SDK' },
      ],
    });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    expect(text).toBe('You said: Streamed by the AI SDK');
    expect(await streamed.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });
  });

  it('is counted as every request and reply is: HTTP requests by route, replies, tool calls', async () => {
    const { body } = await metrics.render();
    expect(body).toMatch(
      /parley_http_requests_total\{[^}]*route="\/v1\/chat\/completions"[^}]*\} [1-9]/,
    );
    expect(body).toMatch(/parley_http_requests_total\{[^}]*route="\/v1\/responses"[^}]*\} [1-9]/);
    expect(body).toMatch(/parley_http_requests_total\{[^}]*route="\/v1\/models"[^}]*\} [1-9]/);
    expect(body).toMatch(/parley_replies_total\{outcome="stored"\} [1-9]/);
    expect(body).toMatch(/parley_tool_calls_total\{[^}]*tool="LOOKUP"[^}]*\} 1/);
  });
});
