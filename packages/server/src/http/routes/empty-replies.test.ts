import { randomUUID } from 'node:crypto';
import {
  doneEventSchema,
  messageCompleteSchema,
  syncModeResponseSchema,
  type MessageComplete,
} from '@parley/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedModel, type ScriptedBehaviour } from '../../../test/scripted-model';
import { connectClient, joinRoom, nextEvent, type TestSocket } from '../../../test/socket-client';
import { parseSse } from '../../../test/sse';
import { startTestServer, type TestServer } from '../../../test/test-server';

// A reply the agent chose not to send, or one the model left without text, is said to be so in every delivery
// mode: `sync` and the stream's `done` carry `empty: true` and the reason, the room's `messageComplete` too.
// Nothing is stored and no `messageBroadcast` comes, so a client that waited for one would wait forever.
const CASES: { name: string; behaviour: ScriptedBehaviour; reason: 'ignored' | 'empty' }[] = [
  { name: 'IGNORE', behaviour: { actions: 'IGNORE', reply: '' }, reason: 'ignored' },
  // Text the model streamed, then took back by not replying: the chunks went out, the reply did not.
  { name: 'IGNORE with text', behaviour: { actions: 'IGNORE', reply: 'Hmm.' }, reason: 'ignored' },
  { name: 'NONE', behaviour: { actions: 'NONE', reply: '' }, reason: 'ignored' },
  { name: 'REPLY without text', behaviour: { actions: 'REPLY', reply: '' }, reason: 'empty' },
  { name: 'plain empty text', behaviour: { plain: true, reply: '' }, reason: 'empty' },
];

describe('an empty or ignored reply, in every delivery mode', () => {
  const model = new ScriptedModel();
  let test: TestServer;
  let socket: TestSocket;

  beforeAll(async () => {
    test = await startTestServer({ model, syncTimeoutMs: 5_000 });
    socket = await connectClient(test.url, 'websocket');
  });
  afterAll(async () => {
    socket?.disconnect();
    await test?.[Symbol.asyncDispose]();
  });
  beforeEach(() => {
    model.behaviour = {};
  });

  const post = (channelId: string, mode: string) =>
    fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Are you there?', entityId: 'user-1', mode }),
    });
  const stored = async (channelId: string) => {
    const response = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`);
    // The history page: a list, or `{ messages }` (the channels API's shape).
    const { data } = (await response.json()) as { data: unknown[] | { messages: unknown[] } };
    return (Array.isArray(data) ? data : data.messages).length;
  };

  describe.each(CASES)('$name', ({ behaviour, reason }) => {
    beforeEach(() => {
      model.behaviour = behaviour;
    });

    it(`sync: agentResponse says empty, reason ${reason}; only the user's message is stored`, async () => {
      const channelId = randomUUID();
      const response = await post(channelId, 'sync');
      expect(response.status).toBe(200);
      const body = syncModeResponseSchema.parse(await response.json());
      expect(body.agentResponse).toMatchObject({ empty: true, reason, toolCalls: [] });
      expect(await stored(channelId)).toBe(1);
    });

    it(`stream: done says empty, reason ${reason}, and the stream ends`, async () => {
      const events = parseSse(await (await post(randomUUID(), 'stream')).text());
      const last = events.at(-1)!;
      expect(last.event).toBe('done');
      expect(doneEventSchema.parse(last.data)).toMatchObject({ empty: true, reason });
    });

    it(`socket: messageComplete says empty, reason ${reason}, with the reply's id; no broadcast`, async () => {
      const channelId = randomUUID();
      await joinRoom(socket, channelId, 'watcher');
      const broadcasts: unknown[] = [];
      const chunks: { messageId: string }[] = [];
      const onBroadcast = (payload: { senderId: string }) => broadcasts.push(payload);
      const onChunk = (payload: { messageId: string; channelId: string }) => {
        if (payload.channelId === channelId) chunks.push(payload);
      };
      socket.on('messageBroadcast', onBroadcast);
      socket.on('messageStreamChunk', onChunk);
      try {
        const complete = nextEvent(socket, 'messageComplete', (p) => p.channelId === channelId);
        const response = await post(channelId, 'websocket');
        expect(response.status).toBe(202);
        const { replyId, userMessage } = (await response.json()) as {
          replyId: string;
          userMessage: { id: string };
        };
        const payload: MessageComplete = messageCompleteSchema.parse(await complete);
        expect(payload).toEqual({
          messageId: userMessage.id,
          roomId: channelId,
          channelId,
          replyId,
          empty: true,
          reason,
        });
        // The user's own message is the one broadcast; the agent's never comes.
        expect(broadcasts).toHaveLength(1);
        for (const chunk of chunks) expect(chunk.messageId).toBe(replyId);
      } finally {
        socket.off('messageBroadcast', onBroadcast);
        socket.off('messageStreamChunk', onChunk);
      }
    });
  });

  it('a reply that was sent says nothing of the kind, in any mode', async () => {
    model.behaviour = { reply: 'Here.' };
    const sync = syncModeResponseSchema.parse(await (await post(randomUUID(), 'sync')).json());
    expect(sync.agentResponse).toEqual({ text: 'Here.', actions: ['REPLY'], toolCalls: [] });
    const done = parseSse(await (await post(randomUUID(), 'stream')).text()).at(-1)!;
    expect(done.data).toEqual({ text: 'Here.', actions: ['REPLY'], toolCalls: [] });
    const channelId = randomUUID();
    await joinRoom(socket, channelId, 'watcher');
    const complete = nextEvent(socket, 'messageComplete', (p) => p.channelId === channelId);
    await post(channelId, 'websocket');
    expect(Object.keys(await complete).sort()).toEqual(['channelId', 'messageId', 'roomId']);
  });
});
