import { randomUUID } from 'node:crypto';
import { type ChannelStreamEvent, ParleyClientError, createParleyClient } from '@parley/client';
import { type AgentRuntime, submitAgentMessage } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../support/start-server';

let running: TestServer;
let client: ReturnType<typeof createParleyClient>;

beforeAll(async () => {
  running = await startServer();
  client = createParleyClient({ baseUrl: running.url });
});
afterAll(() => running?.server.stop());

async function rejection(promise: Promise<unknown>): Promise<ParleyClientError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(ParleyClientError.isInstance(error)).toBe(true);
  return error as ParleyClientError;
}

describe('REST calls against a real server', () => {
  it('reads health and the agents', async () => {
    await expect(client.health()).resolves.toEqual({ status: 'ok' });
    const agents = await client.listAgents();
    expect(agents).toEqual([{ id: expect.any(String), name: 'Eliza' }]);
  });

  it('submits an agent message and finds it in the channel history', async () => {
    const channelId = randomUUID();
    const [agent] = await client.listAgents();
    const stored = await client.submit({
      channel_id: channelId,
      author_id: agent!.id,
      content: 'Deploy finished',
      source_type: 'agent_response',
      raw_message: { text: 'Deploy finished', actions: ['REPLY'] },
      metadata: { agent_id: agent!.id, agentName: 'Eliza' },
    });
    expect(stored).toMatchObject({ channel_id: channelId, content: 'Deploy finished' });
    const history = await client.channelMessages(channelId, { limit: 10 });
    expect(history.map((message) => message.id)).toEqual([stored.id]);
  });

  it('submits through the plugin SDK helper as the runtime agent', async () => {
    const channelId = randomUUID();
    const [agent] = await client.listAgents();
    const runtime = {
      agentId: agent!.id,
      character: { name: 'Eliza' },
      getSetting: (key: string) => (key === 'SERVER_URL' ? running.url : undefined),
    } as unknown as AgentRuntime;
    const stored = await submitAgentMessage(runtime, {
      channelId,
      text: 'From a plugin',
      thought: 'announce',
    });
    expect(stored).toMatchObject({
      author_id: agent!.id,
      source_type: 'agent_response',
      raw_message: { text: 'From a plugin', thought: 'announce', actions: ['REPLY'] },
      metadata: { agent_id: agent!.id, agentName: 'Eliza' },
    });
  });

  it('websocket mode answers at once with the stored user message', async () => {
    const reply = await client.sendMessage(randomUUID(), { text: 'Hello', entityId: 'user-1' });
    expect(reply).toEqual({
      success: true,
      userMessage: { id: expect.any(String), text: 'Hello' },
      replyId: expect.any(String),
    });
  });

  it('sync mode answers with the full agent reply', async () => {
    const reply = await client.sendMessage(randomUUID(), {
      text: 'I feel tired today',
      entityId: 'user-1',
      mode: 'sync',
    });
    expect(reply.userMessage.text).toBe('I feel tired today');
    expect(reply.agentResponse.text.length).toBeGreaterThan(0);
    expect(reply.agentResponse.actions).toEqual(['REPLY']);
  });

  it('stream mode yields user_message, ordered chunks that add up, then done', async () => {
    const channelId = randomUUID();
    const events: ChannelStreamEvent[] = [];
    const stream = client.sendMessage(channelId, {
      text: 'My mother worries about me',
      entityId: 'user-1',
      mode: 'stream',
    });
    for await (const event of stream) events.push(event);

    const replyId = events[0]?.event === 'user_message' ? events[0].data.replyId : undefined;
    expect(events[0]).toMatchObject({ event: 'user_message', id: `${replyId}:-1:0` });
    const chunks = events.flatMap((event) => (event.event === 'chunk' ? [event.data] : []));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.index)).toEqual(chunks.map((_, index) => index));
    const done = events.at(-1);
    expect(done?.event).toBe('done');
    if (done?.event !== 'done') return;
    expect(chunks.map((chunk) => chunk.chunk).join('')).toBe(done.data.text);
    // Every event names the reply and where it is in it, so that the stream can be resumed from any of them.
    expect(events.every((event) => event.id?.startsWith(`${replyId}:`))).toBe(true);
    expect(done.id).toBe(`${replyId}:end`);
    // The reply was stored like any other: it is the newest message of the channel.
    const [newest] = await client.channelMessages(channelId, { limit: 1 });
    expect(newest?.content).toBe(done.data.text);
  });

  it('reads the TEE status and the (empty, OFF mode) attested agent list with a nonce', async () => {
    await expect(client.teeStatus()).resolves.toEqual({
      status: 'disabled',
      tee_enabled: false,
      vendor: 'phala',
    });
    await expect(client.teeAgents('n-1')).resolves.toEqual({ agents: [], attestation: '' });
  });

  it('maps 400 with the validation details', async () => {
    const error = await rejection(client.sendMessage('not-a-uuid', { text: 'x', entityId: 'u' }));
    expect(error).toMatchObject({ status: 400, code: 'BAD_REQUEST', retryable: false });
    const empty = await rejection(client.sendMessage(randomUUID(), { text: '', entityId: 'u' }));
    expect(empty).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(empty.details).toMatchObject({ issues: [{ path: 'text' }] });
  });

  it('maps 404 for an unknown agent, in every mode', async () => {
    const agentId = randomUUID();
    const message = { text: 'hi', entityId: 'u', agentId };
    const error = await rejection(client.sendMessage(randomUUID(), { ...message, mode: 'sync' }));
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const streamed = await rejection(
      (async () => {
        for await (const _ of client.sendMessage(randomUUID(), { ...message, mode: 'stream' })) {
          // The request fails before any event.
        }
      })(),
    );
    expect(streamed).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('gives NETWORK_ERROR when nothing listens at the address', async () => {
    const nowhere = createParleyClient({ baseUrl: 'http://127.0.0.1:9' });
    const error = await rejection(nowhere.health());
    expect(error).toMatchObject({ status: 0, code: 'NETWORK_ERROR', retryable: true });
  });

  it('resumes a dropped stream by Last-Event-ID: every event once, the message stored once', async () => {
    const seen: Headers[] = [];
    // Cuts the first response after its first chunk, the way a proxy dropping the connection would.
    const droppingFetch: typeof fetch = async (input, init) => {
      seen.push(new Headers(init?.headers));
      const response = await fetch(input, init);
      if (seen.length > 1 || !response.body) return response;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!text.includes('event: chunk')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      await reader.cancel();
      const upToFirstChunk = text.slice(0, text.indexOf('\n\n', text.indexOf('event: chunk')) + 2);
      let pulls = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          // Erroring in the same call would discard the queued events, so the drop comes one read later.
          if (pulls++ === 0) controller.enqueue(new TextEncoder().encode(upToFirstChunk));
          else controller.error(new TypeError('terminated'));
        },
      });
      return new Response(body, { headers: response.headers });
    };
    const dropping = createParleyClient({ baseUrl: running.url, fetch: droppingFetch });
    const channelId = randomUUID();
    const events: ChannelStreamEvent[] = [];
    for await (const event of dropping.sendMessage(channelId, {
      text: 'Hello there',
      entityId: 'u',
      mode: 'stream',
    })) {
      events.push(event);
    }
    expect(seen).toHaveLength(2);
    expect(seen[1]!.get('last-event-id')).toBe(events[1]!.id);
    const chunks = events.filter((event) => event.event === 'chunk');
    const done = events.at(-1);
    expect(done?.event).toBe('done');
    expect(chunks.map((event) => event.data.chunk).join('')).toBe(
      done?.event === 'done' ? done.data.text : undefined,
    );
    expect(chunks.map((event) => event.data.index)).toEqual(chunks.map((_, index) => index));
    const history = await client.channelMessages(channelId);
    expect(history.filter((message) => message.content === 'Hello there')).toHaveLength(1);
  });
});
