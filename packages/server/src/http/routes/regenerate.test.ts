import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../../test/scripted-model';
import { connectClient, joinRoom, nextEvent, type TestSocket } from '../../../test/socket-client';
import { startTestServer, type TestServer } from '../../../test/test-server';

// Regenerate, through HTTP and a second client's socket against the real app: the agent answers a stored
// message again; the new answer is stored beside the old one (both `in_reply_to` the message), reaches another
// client of the room live, and the model asked again does not see the answer it replaces.
describe('POST /api/messaging/channels/{channelId}/messages/{messageId}/regenerate', () => {
  const model = new ScriptedModel();
  let test: TestServer;
  let other: TestSocket;

  beforeAll(async () => {
    test = await startTestServer({ model, syncTimeoutMs: 60_000 });
    other = await connectClient(test.url, 'websocket');
  });
  afterAll(async () => {
    other?.disconnect();
    await test?.[Symbol.asyncDispose]();
  });

  const history = async (channelId: string) => {
    const response = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`);
    const { data } = (await response.json()) as {
      data: { messages: { id: string; content: string; in_reply_to: string | null }[] };
    };
    return data.messages;
  };
  const regenerate = (channelId: string, messageId: string) =>
    fetch(`${test.url}/api/messaging/channels/${channelId}/messages/${messageId}/regenerate`, {
      method: 'POST',
    });

  it('stores a second answer to the same message, live to another client, unseen answers kept from the model', async () => {
    const channelId = randomUUID();
    model.behaviour = { reply: 'First answer' };
    const sent = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Name a colour', entityId: 'user-1', mode: 'sync' }),
    });
    expect(sent.status).toBe(200);
    const { userMessage } = (await sent.json()) as { userMessage: { id: string } };

    await joinRoom(other, channelId, 'user-2');
    model.behaviour = { reply: 'Second answer' };
    const asked = model.requests.length;
    const broadcast = nextEvent(
      other,
      'messageBroadcast',
      (message) => message.channelId === channelId,
    );
    const response = await regenerate(channelId, userMessage.id);
    expect(response.status).toBe(202);
    const { data } = (await response.json()) as { data: { replyId: string; messageId: string } };
    expect(data.messageId).toBe(userMessage.id);

    // Another client of the room sees the new answer, naming the message it answers.
    const live = await broadcast;
    expect(live).toMatchObject({
      id: data.replyId,
      text: 'Second answer',
      inReplyTo: userMessage.id,
      metadata: { regenerated: true },
    });

    // Both answers are kept, each answering the same message: a reload shows them as alternatives.
    const stored = await history(channelId);
    const answers = stored.filter((message) => message.in_reply_to === userMessage.id);
    expect(answers.map((message) => message.content).sort()).toEqual([
      'First answer',
      'Second answer',
    ]);
    // The user's message was not posted again.
    expect(stored.filter((message) => message.content === 'Name a colour')).toHaveLength(1);

    // The model answering again saw the question, not the answer it replaces.
    const prompt = JSON.stringify(model.requests[asked]?.messages);
    expect(prompt).toContain('Name a colour');
    expect(prompt).not.toContain('First answer');
  });

  it("refuses what is not a user's message of the channel: 404, nothing stored", async () => {
    const channelId = randomUUID();
    model.behaviour = { reply: 'An answer' };
    const sent = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello', entityId: 'user-1', mode: 'sync' }),
    });
    const { userMessage } = (await sent.json()) as { userMessage: { id: string } };
    const before = await history(channelId);
    const reply = before.find((message) => message.in_reply_to === userMessage.id)!;

    const responses = await Promise.all([
      regenerate(randomUUID(), userMessage.id), // another channel
      regenerate(channelId, randomUUID()), // no such message
      regenerate(channelId, reply.id), // an agent's reply, not a user's message
    ]);
    expect(responses.map((response) => response.status)).toEqual([404, 404, 404]);
    expect((await regenerate(channelId, 'not-a-uuid')).status).toBe(400);
    expect(await history(channelId)).toHaveLength(before.length);
  });
});
