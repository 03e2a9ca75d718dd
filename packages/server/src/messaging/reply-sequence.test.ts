import { randomUUID } from 'node:crypto';
import { SOCKET_MESSAGE_TYPE } from '@parley/core';
import { definePlugin, defineRoute } from '@parley/plugin-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, joinRoom, type TestSocket } from '../../test/socket-client';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createMemoryLogger } from '../plugins/create-plugin-test-app';
import type { ModelProvider } from '../models/model-provider';
import { createOpenAICompatibleModel } from '../models/openai-compatible-model';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../models/testing/fake-openai-server';

/**
 * Every way a reply can start, and every way it can end, seen from a socket member of the room: the same
 * sequence each time (chunks, then the stored reply or messageError, then messageComplete). The model is a real
 * OpenAI-compatible client talking to a local fake upstream; the last user message picks how it answers.
 */
const ANSWERS: Record<string, string> = {
  plain: 'Just plain words.',
  json: '{"thought":"easy","actions":["REPLY"],"text":"Words from JSON."}',
  xml: '<response><thought>t</thought><actions>REPLY</actions><text>Words from XML.</text></response>',
  slowly: 'Taking my time, chunk by chunk, to the very end.',
};
const EXPECTED_TEXT: Record<string, string> = {
  plain: 'Just plain words.',
  json: 'Words from JSON.',
  xml: 'Words from XML.',
  slowly: 'Taking my time, chunk by chunk, to the very end.',
};

const upstreams: FakeOpenAIServer[] = [];
let test: TestServer;
const memory = createMemoryLogger();
const open: TestSocket[] = [];

/** Routes each request to an upstream by the last user message: `cut…`, `stall…`, `slowly`, else by answer. */
function routingModel(
  models: Record<'ok' | 'cut' | 'stall' | 'slow', ModelProvider>,
): ModelProvider {
  return {
    name: 'routing',
    callsTools: true,
    stream(request) {
      const last = request.messages.at(-1)?.content ?? '';
      if (last.startsWith('cut')) return models.cut.stream(request);
      if (last.startsWith('stall')) return models.stall.stream(request);
      if (last === 'slowly') return models.slow.stream(request);
      return models.ok.stream(request);
    },
  };
}

beforeAll(async () => {
  const lastUserText = (messages: { content: unknown }[]) => {
    const content = messages.at(-1)?.content;
    return typeof content === 'string' ? content : '';
  };
  const ok = await startFakeOpenAIServer({
    reply: (messages) => ANSWERS[lastUserText(messages)] ?? ANSWERS.plain!,
  });
  const cut = await startFakeOpenAIServer({ mode: 'cut', reply: ANSWERS.slowly, chunkSize: 4 });
  const stall = await startFakeOpenAIServer({ mode: 'slow', delayMs: 10_000 });
  const slow = await startFakeOpenAIServer({
    reply: ANSWERS.slowly,
    chunkSize: 4,
    chunkDelayMs: 15,
  });
  upstreams.push(ok, cut, stall, slow);
  const model = (url: string, timeoutMs = 10_000) =>
    createOpenAICompatibleModel({ baseUrl: url, model: 'fake', timeoutMs });
  const poster = definePlugin({
    name: 'poster',
    routes: [
      defineRoute<{ channelId: string; text: string }>({
        type: 'POST',
        path: '/post',
        handler: async (req, res, runtime) => {
          const { id } = await runtime.sendMessage({
            channelId: req.body.channelId,
            text: req.body.text,
          });
          res.json({ success: true, id });
        },
      }),
      defineRoute<{ channelId: string; text: string }>({
        type: 'POST',
        path: '/later',
        handler: async (req, res, runtime) => {
          const sendAt = new Date(Date.now() + 200);
          const info = await runtime.scheduleMessage({ ...req.body, sendAt });
          res.json({ success: true, id: info.id });
        },
      }),
    ],
  });
  test = await startTestServer({
    logger: memory.logger,
    model: routingModel({
      ok: model(ok.url),
      cut: model(cut.url),
      stall: model(stall.url, 300),
      slow: model(slow.url),
    }),
    plugins: [poster],
    schedulerPollMs: 50,
  });
});
afterAll(async () => {
  await test?.[Symbol.asyncDispose]();
  for (const upstream of upstreams) await upstream.close();
});
afterEach(() => {
  for (const socket of open.splice(0)) socket.disconnect();
});

/** A socket member of a new room, and the sequence of reply events it sees (consecutive chunks as one). */
async function member() {
  const roomId = randomUUID();
  const socket = await connectClient(test.url, 'websocket');
  open.push(socket);
  await joinRoom(socket, roomId, 'watcher');
  const events: { name: string; payload: Record<string, unknown> }[] = [];
  const record = (name: string) => (payload: Record<string, unknown>) =>
    events.push({ name, payload });
  socket.on('messageStreamChunk', record('chunk'));
  socket.on('messageBroadcast', record('broadcast'));
  socket.on('messageError', record('error'));
  socket.on('messageComplete', record('complete'));
  const sequence = async () => {
    await expect
      .poll(() => events.some((event) => event.name === 'complete'), { timeout: 8000 })
      .toBe(true);
    const replyEvents = events.filter(
      (event) =>
        !(
          event.name === 'broadcast' &&
          event.payload.source !== 'agent_response' &&
          event.payload.source !== 'scheduled'
        ),
    );
    const names = replyEvents
      .map((event) => event.name)
      .filter((name, i, all) => name !== 'chunk' || all[i - 1] !== 'chunk');
    const text = replyEvents
      .filter((event) => event.name === 'chunk')
      .map((event) => event.payload.chunk)
      .join('');
    const reply = replyEvents.find((event) => event.name === 'broadcast')?.payload;
    const error = replyEvents.find((event) => event.name === 'error')?.payload;
    return { names, text, reply, error };
  };
  return { roomId, socket, sequence };
}

const post = (path: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${test.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...init,
  });
const channelPath = (roomId: string) => `/api/messaging/channels/${roomId}/messages`;

type Entry = (roomId: string, socket: TestSocket, text: string) => Promise<void>;
const ENTRIES: Record<string, Entry> = {
  'REST websocket': async (roomId, _, text) => {
    expect(
      (await post(channelPath(roomId), { text, entityId: 'u', mode: 'websocket' })).status,
    ).toBe(202);
  },
  'REST stream': async (roomId, _, text) => {
    await (await post(channelPath(roomId), { text, entityId: 'u', mode: 'stream' })).text();
  },
  'REST sync': async (roomId, _, text) => {
    await (await post(channelPath(roomId), { text, entityId: 'u', mode: 'sync' })).text();
  },
  'socket SEND_MESSAGE': async (roomId, socket, text) => {
    const ack = await socket.emitWithAck('message', {
      type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
      payload: { roomId, senderId: 'watcher', senderName: 'Watcher', message: text },
    });
    expect(ack).toMatchObject({ status: 'ok' });
  },
};

describe.each(Object.entries(ENTRIES))('a reply started by %s', (_, start) => {
  it.each(['plain', 'json', 'xml'])(
    'answered in %s is streamed, stored and broadcast',
    async (kind) => {
      const { roomId, socket, sequence } = await member();
      await start(roomId, socket, kind);
      const seen = await sequence();
      expect(seen.names).toEqual(['chunk', 'broadcast', 'complete']);
      expect(seen.text).toBe(EXPECTED_TEXT[kind]);
      expect(seen.reply).toMatchObject({ text: EXPECTED_TEXT[kind], source: 'agent_response' });
      const stored = (await (await fetch(`${test.url}${channelPath(roomId)}`)).json()) as {
        data: { messages: { content: string }[] };
      };
      expect(stored.data.messages[0]!.content).toBe(EXPECTED_TEXT[kind]);
    },
  );

  it('that the model breaks off mid-way ends with messageError, then messageComplete', async () => {
    const { roomId, socket, sequence } = await member();
    await start(roomId, socket, 'cut short');
    const seen = await sequence();
    expect(seen.names).toEqual(['chunk', 'error', 'complete']);
    expect(seen.error).toMatchObject({ code: 'MODEL_ERROR', roomId });
  });

  it('that the model never answers ends with a TIMEOUT messageError, then messageComplete', async () => {
    const { roomId, socket, sequence } = await member();
    await start(roomId, socket, 'stall');
    const seen = await sequence();
    expect(seen.names).toEqual(['error', 'complete']);
    expect(seen.error).toMatchObject({ code: 'TIMEOUT', roomId });
  });
});

describe.each(['stream', 'sync'])('a %s caller that disconnects', (mode) => {
  it('leaves the reply to finish: the room sees it whole', async () => {
    const { roomId, sequence } = await member();
    const controller = new AbortController();
    const response = post(
      channelPath(roomId),
      { text: 'slowly', entityId: 'u', mode },
      { signal: controller.signal },
    );
    // Gone as soon as the user message is stored (its broadcast has reached the room).
    await expect
      .poll(() =>
        fetch(`${test.url}${channelPath(roomId)}`).then(
          async (r) => ((await r.json()) as { data: { messages: unknown[] } }).data.messages.length,
        ),
      )
      .toBe(1);
    controller.abort();
    await response.catch(() => undefined);
    const seen = await sequence();
    expect(seen.names).toEqual(['chunk', 'broadcast', 'complete']);
    expect(seen.text).toBe(EXPECTED_TEXT.slowly);
  });
});

describe('a message an agent posts', () => {
  it('through a plugin reaches the room as a reply: chunk, broadcast, complete', async () => {
    const { roomId, sequence } = await member();
    expect((await post('/post', { channelId: roomId, text: 'From a plugin.' })).status).toBe(200);
    const seen = await sequence();
    expect(seen.names).toEqual(['chunk', 'broadcast', 'complete']);
    expect(seen.text).toBe('From a plugin.');
  });

  it('on a schedule reaches the room the same way', async () => {
    const { roomId, sequence } = await member();
    expect((await post('/later', { channelId: roomId, text: 'Right on time.' })).status).toBe(200);
    const seen = await sequence();
    expect(seen.names).toEqual(['chunk', 'broadcast', 'complete']);
    expect(seen.reply).toMatchObject({ text: 'Right on time.', source: 'scheduled' });
  });

  it('with bad input is a 400 naming the field, and nothing reaches the room', async () => {
    const response = await post('/post', { channelId: 'not-a-uuid', text: 'x' });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/channelId/);
  });
});

describe('logs', () => {
  it('say why a reply failed without the conversation, and why an agent stayed silent', async () => {
    const { roomId, socket, sequence } = await member();
    await ENTRIES['REST websocket']!(roomId, socket, 'cut with a secret: hunter2');
    await sequence();
    const failure = await memory.waitForLine(
      (line) => line.level === 50 && line.replyId !== undefined,
    );
    expect(failure.msg).toMatch(/stream ended early/);
    expect(JSON.stringify(memory.lines)).not.toContain('hunter2');
  });
});
