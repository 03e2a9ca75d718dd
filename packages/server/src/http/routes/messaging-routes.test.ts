import { randomUUID } from 'node:crypto';
import { ParleyError } from '@parley/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { databaseKinds } from '../../../test/databases';
import { ScriptedModel, deferred } from '../../../test/scripted-model';
import { parseSse } from '../../../test/sse';
import { startTestServer, type TestServer } from '../../../test/test-server';

const kinds = await databaseKinds();
const AGENT_B = { name: 'Bea', id: '7d1a9c1e-0b7e-4b8a-9a55-3f1f0e2d4c6b' };

describe.each(kinds)('messaging endpoints on $name', ({ create, skip }) => {
  const model = new ScriptedModel();
  let test: TestServer;

  beforeAll(async () => {
    if (skip) return;
    test = await startTestServer(
      { model, characters: [{ name: 'Eliza' }, AGENT_B], syncTimeoutMs: 500, sseKeepAliveMs: 40 },
      await create(),
    );
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });
  beforeEach(() => {
    model.behaviour = {};
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${test.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const channelPath = (channelId: string) => `/api/messaging/channels/${channelId}/messages`;
  const history = async (channelId: string, query = '') => {
    const response = await fetch(`${test.url}${channelPath(channelId)}${query}`);
    return (
      (await response.json()) as {
        data: {
          messages: {
            content: string;
            author_id: string;
            in_reply_to: string | null;
            id: string;
          }[];
        };
      }
    ).data.messages;
  };

  describe.skipIf(skip)('POST /api/messaging/submit', () => {
    it('stores the message and answers 201 with it under data', async () => {
      const channelId = randomUUID();
      const response = await post('/api/messaging/submit', {
        channel_id: channelId,
        server_id: '00000000-0000-0000-0000-000000000000',
        author_id: test.server.agents.defaultAgent.agentId,
        content: 'Deploy finished',
        source_type: 'agent_response',
        raw_message: { text: 'Deploy finished', thought: 't', actions: ['REPLY'] },
        metadata: {
          agent_id: 'x',
          agentName: 'Deployer',
          attachments: [{ filename: 'a.txt', size: 3, mimeType: 'text/plain' }],
        },
      });
      expect(response.status).toBe(201);
      const body = (await response.json()) as { success: boolean; data: Record<string, unknown> };
      expect(body.success).toBe(true);
      expect(body.data).toMatchObject({
        channel_id: channelId,
        content: 'Deploy finished',
        author_name: 'Deployer',
      });
      expect(typeof body.data.id).toBe('string');
      expect((await history(channelId)).map((m) => m.id)).toEqual([body.data.id]);
      expect(model.requests).toHaveLength(0);
    });

    it('rejects invalid messages with 400 naming the field, and stores nothing', async () => {
      const channelId = randomUUID();
      const response = await post('/api/messaging/submit', { channel_id: channelId, content: 'x' });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        success: false,
        error: {
          code: 'BAD_REQUEST',
          message: 'Invalid message: author_id Invalid input: expected string, received undefined',
        },
      });
      expect(await history(channelId)).toEqual([]);
      expect((await post('/api/messaging/submit', 'not json')).status).toBe(400);
    });
  });

  describe.skipIf(skip)('channel messages', () => {
    it('sync: answers with the user message and the full reply, both stored in order', async () => {
      const channelId = randomUUID();
      model.behaviour = { reply: 'Tell me more about that.' };
      const response = await post(channelPath(channelId), {
        text: 'I feel tired',
        entityId: 'user-1',
        mode: 'sync',
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        userMessage: { id: string; text: string };
        agentResponse: unknown;
        success: boolean;
      };
      expect(body).toEqual({
        success: true,
        userMessage: { id: body.userMessage.id, text: 'I feel tired' },
        agentResponse: { text: 'Tell me more about that.', actions: ['REPLY'], toolCalls: [] },
        replyId: expect.any(String) as string,
      });
      const stored = await history(channelId);
      expect(stored.map((m) => m.content)).toEqual(['Tell me more about that.', 'I feel tired']);
      expect(stored[0]!.id).toBe((body as { replyId?: string }).replyId);
      expect(stored[0]!.in_reply_to).toBe(body.userMessage.id);
      expect(stored[0]!.author_id).toBe(test.server.agents.defaultAgent.agentId);
    });

    it('sync: the model sees the character and the channel history', async () => {
      const channelId = randomUUID();
      await post(channelPath(channelId), { text: 'first', entityId: 'u', mode: 'sync' });
      await post(channelPath(channelId), { text: 'second', entityId: 'u', mode: 'sync' });
      const last = model.requests.at(-1)!;
      expect(last.messages[0]!.role).toBe('system');
      expect(last.messages.slice(1).map((m) => [m.role, m.content])).toEqual([
        ['user', 'first'],
        ['assistant', 'Hello there!'],
        ['user', 'second'],
      ]);
    });

    it('stream: sends user_message, ordered chunks that add up to the reply, then done', async () => {
      const channelId = randomUUID();
      model.behaviour = { reply: 'A streamed reply, chunk by chunk.', chunkSize: 3 };
      const response = await post(
        channelPath(channelId),
        { text: 'hi', entityId: 'u', mode: 'stream' },
        { accept: 'text/event-stream' },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(response.headers.get('x-accel-buffering')).toBe('no');
      const events = parseSse(await response.text());
      expect(events[0]).toMatchObject({ event: 'user_message', data: { text: 'hi' } });
      const chunks = events
        .filter((e) => e.event === 'chunk')
        .map((e) => e.data as { chunk: string; index: number; messageId: string });
      expect(chunks.length).toBeGreaterThan(3);
      expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
      expect(chunks.map((c) => c.chunk).join('')).toBe('A streamed reply, chunk by chunk.');
      expect(events.at(-1)).toMatchObject({
        event: 'done',
        data: { text: 'A streamed reply, chunk by chunk.', actions: ['REPLY'] },
      });
      expect(events.every((e) => e.id !== undefined)).toBe(true);
      const stored = await history(channelId);
      expect(stored[0]!.id).toBe(chunks[0]!.messageId);
    });

    it('stream: sends keep-alive comments while the model is slow', async () => {
      const gate = deferred();
      model.behaviour = { gate: gate.promise };
      const response = await post(channelPath(randomUUID()), {
        text: 'hi',
        entityId: 'u',
        mode: 'stream',
      });
      const reader = response.body!.getReader();
      let received = '';
      while (!received.includes(': keep-alive'))
        received += new TextDecoder().decode((await reader.read()).value);
      gate.resolve();
      while (!(await reader.read()).done);
    });

    it('websocket: answers 202 at once with the user message; the reply is produced after', async () => {
      const channelId = randomUUID();
      const gate = deferred();
      model.behaviour = { gate: gate.promise };
      const response = await post(channelPath(channelId), { text: 'hello', entityId: 'u' });
      expect(response.status).toBe(202);
      const body = (await response.json()) as {
        success: boolean;
        userMessage: { id: string; text: string };
      };
      expect(body).toEqual({
        success: true,
        userMessage: { id: body.userMessage.id, text: 'hello' },
        replyId: expect.any(String) as string,
      });
      expect((await history(channelId)).map((m) => m.content)).toEqual(['hello']);
      gate.resolve();
      // The sync call queues behind the first reply in the same channel, so both replies exist after it.
      const again = await post(channelPath(channelId), {
        text: 'again',
        entityId: 'u',
        mode: 'sync',
      });
      const againId = ((await again.json()) as { userMessage: { id: string } }).userMessage.id;
      const stored = (await history(channelId)).reverse();
      expect(stored[0]!.content).toBe('hello');
      const replyTo = stored.filter((m) => m.content === 'Hello there!').map((m) => m.in_reply_to);
      expect(replyTo).toEqual([body.userMessage.id, againId]);
      expect(stored).toHaveLength(4);
    });

    it('answers in order within a channel and in parallel across channels', async () => {
      const slowChannel = randomUUID();
      const fastChannel = randomUUID();
      const gate = deferred();
      const lastText = (request: { messages: { content: string }[] }) =>
        request.messages.at(-1)!.content;
      model.behaviour = {
        reply: (request) => lastText(request).toUpperCase(),
        gate: (request) => (lastText(request) === 'one' ? gate.promise : undefined),
      };
      const first = post(channelPath(slowChannel), { text: 'one', entityId: 'u', mode: 'sync' });
      await expect.poll(() => model.requests.some((r) => lastText(r) === 'one')).toBe(true);
      const second = post(channelPath(slowChannel), { text: 'two', entityId: 'u', mode: 'sync' });
      // Another channel is not held up by the slow one.
      const other = await post(channelPath(fastChannel), {
        text: 'three',
        entityId: 'u',
        mode: 'sync',
      });
      expect(((await other.json()) as { agentResponse: { text: string } }).agentResponse.text).toBe(
        'THREE',
      );
      // The second message of the slow channel waits for the first reply.
      expect(model.requests.some((r) => lastText(r) === 'two')).toBe(false);
      gate.resolve();
      await Promise.all([first, second]);
      const stored = (await history(slowChannel)).reverse();
      expect(stored.map((m) => m.content)).toEqual(['one', 'two', 'ONE', 'TWO']);
      expect(stored[3]!.in_reply_to).toBe(stored[1]!.id);
    });

    it('picks the agent asked for, remembers it for the channel, and rejects unknown or malformed ids', async () => {
      const channelId = randomUUID();
      await post(channelPath(channelId), {
        text: 'hi',
        entityId: 'u',
        mode: 'sync',
        agentId: AGENT_B.id,
      });
      await post(channelPath(channelId), { text: 'hi again', entityId: 'u', mode: 'sync' });
      const replies = (await history(channelId)).filter((m) => m.author_id !== 'u');
      expect(replies.map((m) => m.author_id)).toEqual([AGENT_B.id, AGENT_B.id]);

      const unknown = await post(channelPath(channelId), {
        text: 'x',
        entityId: 'u',
        agentId: randomUUID(),
      });
      expect(unknown.status).toBe(404);
      const malformed = await post(channelPath(channelId), {
        text: 'x',
        entityId: 'u',
        agentId: 'bea',
      });
      expect(malformed.status).toBe(400);
    });

    it('rejects bad input with 400 and stores nothing', async () => {
      const channelId = randomUUID();
      const cases = [
        [channelPath('not-a-uuid'), { text: 'x', entityId: 'u' }],
        [channelPath(channelId), { text: '', entityId: 'u' }],
        [channelPath(channelId), { text: 'x' }],
        [channelPath(channelId), { text: 'x', entityId: 'u', mode: 'carrier-pigeon' }],
      ] as const;
      for (const [path, body] of cases) expect((await post(path, body)).status).toBe(400);
      expect(await history(channelId)).toEqual([]);
    });
  });

  describe.skipIf(skip)('model failures', () => {
    it('sync: a failing model is a 502 with a clear code; the user message stays stored', async () => {
      const channelId = randomUUID();
      model.behaviour = {
        fail: new ParleyError('MODEL_ERROR', 'The model provider failed', {
          cause: new Error('upstream said: key sk-123 invalid'),
        }),
      };
      const response = await post(channelPath(channelId), {
        text: 'hello?',
        entityId: 'u',
        mode: 'sync',
      });
      expect(response.status).toBe(502);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({
        success: false,
        error: { code: 'MODEL_ERROR', message: 'The model provider failed' },
      });
      expect(text).not.toContain('sk-123');
      expect((await history(channelId)).map((m) => m.content)).toEqual(['hello?']);
    });

    it('sync: a model slower than the sync timeout is a 504; the reply goes on and is stored', async () => {
      const gate = deferred();
      model.behaviour = { gate: gate.promise, reply: () => 'Late, but here.' };
      const channelId = randomUUID();
      const response = await post(channelPath(channelId), {
        text: 'hello?',
        entityId: 'u',
        mode: 'sync',
      });
      expect(response.status).toBe(504);
      expect(await response.json()).toMatchObject({ error: { code: 'TIMEOUT' } });
      gate.resolve();
      await expect
        .poll(async () => (await history(channelId)).map((m) => m.content))
        .toEqual(['Late, but here.', 'hello?']);
    });

    it('stream: a failing model ends the stream with an error event', async () => {
      const channelId = randomUUID();
      model.behaviour = { fail: new ParleyError('MODEL_ERROR', 'The model provider failed') };
      const response = await post(channelPath(channelId), {
        text: 'hello?',
        entityId: 'u',
        mode: 'stream',
      });
      const events = parseSse(await response.text());
      expect(events.map((e) => e.event)).toEqual(['user_message', 'error']);
      expect(events[1]!.data).toEqual({
        code: 'MODEL_ERROR',
        message: 'The model provider failed',
      });
      expect((await history(channelId)).map((m) => m.content)).toEqual(['hello?']);
    });

    it('stream: a client that goes away does not stop the reply, and resumes with Last-Event-ID', async () => {
      const gate = deferred();
      model.behaviour = { gate: gate.promise, reply: () => 'All of it, in the end.' };
      const channelId = randomUUID();
      const controller = new AbortController();
      const response = await fetch(`${test.url}${channelPath(channelId)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hi', entityId: 'u', mode: 'stream' }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      let seen = '';
      while (!seen.includes('event: user_message')) {
        seen += new TextDecoder().decode((await reader.read()).value);
      }
      const lastEventId = /event: user_message\nid: (\S+)/.exec(seen)![1]!;
      controller.abort();
      gate.resolve();
      await expect
        .poll(async () => (await history(channelId)).map((m) => m.content))
        .toEqual(['All of it, in the end.', 'hi']);

      // The same request again, as an EventSource repeats it: the rest of the reply, not a new message.
      const resumed = await fetch(`${test.url}${channelPath(channelId)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'last-event-id': lastEventId },
        body: JSON.stringify({ text: 'hi', entityId: 'u', mode: 'stream' }),
      });
      const events = parseSse(await resumed.text());
      expect(events.at(-1)!.event).toBe('done');
      const chunks = events
        .filter((e) => e.event === 'chunk')
        .map((e) => e.data as { chunk: string });
      expect(chunks.map((c) => c.chunk).join('')).toBe('All of it, in the end.');
      expect((await history(channelId)).map((m) => m.content)).toHaveLength(2);

      // Reconnecting after `done` ends the stream for good (204 stops an EventSource).
      const after = await fetch(`${test.url}${channelPath(channelId)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'last-event-id': events.at(-1)!.id! },
        body: '{}',
      });
      expect(after.status).toBe(204);
    });

    it('stream: resumes a reply while it runs, from the chunk after Last-Event-ID', async () => {
      const gate = deferred();
      model.behaviour = {
        reply: 'one two three',
        chunkSize: 1,
        pauseInText: { after: 4, gate: gate.promise },
      };
      const channelId = randomUUID();
      const controller = new AbortController();
      const response = await fetch(`${test.url}${channelPath(channelId)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'count', entityId: 'u', mode: 'stream' }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      let seen = '';
      while (!seen.includes('"chunk":" "')) {
        seen += new TextDecoder().decode((await reader.read()).value);
      }
      const ids = [...seen.matchAll(/event: chunk\nid: (\S+)/g)].map((match) => match[1]!);
      const lastEventId = ids.at(-1)!;
      controller.abort();
      const replyId = lastEventId.split(':')[0]!;
      const resumed = fetch(`${test.url}/api/messaging/replies/${replyId}/events`, {
        headers: { 'last-event-id': lastEventId },
      });
      gate.resolve();
      const events = parseSse(await (await resumed).text());
      const rest = events
        .filter((e) => e.event === 'chunk')
        .map((e) => (e.data as { chunk: string }).chunk)
        .join('');
      expect(rest).toBe('two three');
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { text: 'one two three' } });
      expect((await history(channelId)).map((m) => m.content)).toEqual(['one two three', 'count']);
    });
  });

  describe.skipIf(skip)('Idempotency-Key', () => {
    it('submit: the same key and body answer the first message again; another body is a 409', async () => {
      const channelId = randomUUID();
      const message = { channel_id: channelId, author_id: 'bot', content: 'once' };
      const key = { 'idempotency-key': randomUUID() };
      const first = await post('/api/messaging/submit', message, key);
      const again = await post('/api/messaging/submit', message, key);
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      const firstId = ((await first.json()) as { data: { id: string } }).data.id;
      expect(((await again.json()) as { data: { id: string } }).data.id).toBe(firstId);
      expect(await history(channelId)).toHaveLength(1);
      const other = await post('/api/messaging/submit', { ...message, content: 'twice?' }, key);
      expect(other.status).toBe(409);
      expect(await history(channelId)).toHaveLength(1);
    });

    it('channel messages: a retry gets the same message and the same reply, stored once; anything else asked is a 409', async () => {
      const channelId = randomUUID();
      model.behaviour = { reply: 'Only once.' };
      const key = { 'idempotency-key': 'retry-me' + randomUUID() };
      const message = { text: 'do it once', entityId: 'u', mode: 'sync' };
      const first = (await (await post(channelPath(channelId), message, key)).json()) as {
        userMessage: { id: string };
        replyId: string;
        agentResponse: { text: string };
      };
      const again = (await (
        await post(channelPath(channelId), message, key)
      ).json()) as typeof first;
      expect(again).toEqual(first);
      expect(first.agentResponse.text).toBe('Only once.');
      expect((await history(channelId)).map((m) => m.content)).toEqual([
        'Only once.',
        'do it once',
      ]);

      // The same key asking anything else (as the HTTP guide says: another body) is a 409, and stores nothing.
      for (const changed of [
        { text: 'something else' },
        { mode: 'stream' },
        { mode: 'websocket' },
        { senderName: 'Someone' },
        { metadata: { other: true } },
        { agentId: AGENT_B.id },
      ]) {
        const response = await post(channelPath(channelId), { ...message, ...changed }, key);
        expect(response.status, JSON.stringify(changed)).toBe(409);
      }
      expect(await history(channelId)).toHaveLength(2);
    });

    it('channel messages in stream mode: a retry streams the same reply again, from storage', async () => {
      const channelId = randomUUID();
      model.behaviour = { reply: 'Streamed once.' };
      const key = { 'idempotency-key': randomUUID() };
      const message = { text: 'stream it once', entityId: 'u', mode: 'stream' };
      const first = parseSse(await (await post(channelPath(channelId), message, key)).text());
      const again = parseSse(await (await post(channelPath(channelId), message, key)).text());
      expect(again[0]).toMatchObject({ event: 'user_message', data: first[0]!.data as object });
      expect(again.at(-1)).toMatchObject({ event: 'done', data: { text: 'Streamed once.' } });
      expect((await history(channelId)).map((m) => m.content)).toEqual([
        'Streamed once.',
        'stream it once',
      ]);
    });

    it('refuses an empty or over-long key with 400', async () => {
      const body = { channel_id: randomUUID(), author_id: 'bot', content: 'x' };
      for (const key of ['', 'k'.repeat(256)]) {
        expect((await post('/api/messaging/submit', body, { 'idempotency-key': key })).status).toBe(
          400,
        );
      }
    });
  });

  describe.skipIf(skip)('GET channel messages', () => {
    it('lists newest first with limit and before, and validates the query', async () => {
      const channelId = randomUUID();
      for (const text of ['a', 'b', 'c']) {
        await post('/api/messaging/submit', {
          channel_id: channelId,
          author_id: 'bot',
          content: text,
        });
      }
      expect((await history(channelId, '?limit=2')).map((m) => m.content)).toEqual(['c', 'b']);
      const all = await history(channelId);
      const before = encodeURIComponent((all[0] as unknown as { created_at: string }).created_at);
      expect((await history(channelId, `?before=${before}`)).map((m) => m.content)).not.toContain(
        'c',
      );
      expect((await fetch(`${test.url}${channelPath(channelId)}?limit=0`)).status).toBe(400);
      // Above the maximum: clamped, as elizaOS does, not refused.
      expect((await history(channelId, '?limit=1000')).map((m) => m.content)).toEqual([
        'c',
        'b',
        'a',
      ]);
      expect((await fetch(`${test.url}${channelPath(channelId)}?before=yesterday`)).status).toBe(
        400,
      );
      expect((await fetch(`${test.url}${channelPath('nope')}`)).status).toBe(400);
    });
  });
});
