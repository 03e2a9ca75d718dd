import { randomUUID } from 'node:crypto';
import type { ModelRequest } from '../../models/model-provider';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityIdOf } from '../../identity/identity';
import { ScriptedModel } from '../../../test/scripted-model';
import { connectClient, joinRoom, nextEvent, type TestSocket } from '../../../test/socket-client';
import { startTestServer, type TestServer } from '../../../test/test-server';

/** The text of the last turn of a request. */
const lastText = (request: ModelRequest) => {
  const last = request.messages.at(-1);
  return last && 'content' in last ? last.content : '';
};

/**
 * A model that answers the channel namer's request (`Write a short title…`) with `title`, anything else with
 * `answer` (or a function of what was said).
 */
function answering(model: ScriptedModel, title: string, answer: (said: string) => string) {
  model.behaviour = {
    plain: true,
    reply: (request) => {
      const said = lastText(request);
      return said.startsWith('Write a short title') ? title : answer(said);
    },
  };
}

// Edit and resend, through HTTP and a second client's socket against the real app: the message takes the new
// text (its earlier text kept), the room sees it, and the agent answers the new text as Regenerate does.
describe('POST /api/messaging/channels/{channelId}/messages/{messageId}/edit', () => {
  const model = new ScriptedModel();
  let test: TestServer;
  let other: TestSocket;

  beforeAll(async () => {
    test = await startTestServer({ model, syncTimeoutMs: 60_000, rateLimit: false });
    other = await connectClient(test.url, 'websocket');
  });
  afterAll(async () => {
    other?.disconnect();
    await test?.[Symbol.asyncDispose]();
  });

  const history = async (channelId: string) => {
    const response = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`);
    const { data } = (await response.json()) as {
      data: {
        messages: {
          id: string;
          content: string;
          in_reply_to: string | null;
          metadata: Record<string, unknown>;
        }[];
      };
    };
    return data.messages;
  };
  const send = async (channelId: string, text: string, entityId = 'user-1') => {
    const sent = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text, entityId, mode: 'sync' }),
    });
    expect(sent.status).toBe(200);
    return ((await sent.json()) as { userMessage: { id: string } }).userMessage;
  };
  const edit = (channelId: string, messageId: string, body: unknown) =>
    fetch(`${test.url}/api/messaging/channels/${channelId}/messages/${messageId}/edit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('stores the new text, tells the room, and answers it again with the old answer kept', async () => {
    const channelId = randomUUID();
    answering(model, 'Colour question', () => 'First answer');
    const userMessage = await send(channelId, 'Name a colour');

    await joinRoom(other, channelId, 'user-2');
    answering(model, 'Fruit question', (said) => `Answer to ${said}`);
    const asked = model.requests.length;
    const editedSeen = nextEvent(
      other,
      'messageBroadcast',
      (message) => message.id === userMessage.id,
    );
    const answerSeen = nextEvent(
      other,
      'messageBroadcast',
      (message) => message.channelId === channelId && message.inReplyTo === userMessage.id,
    );
    const response = await edit(channelId, userMessage.id, { text: 'Name a fruit' });
    expect(response.status).toBe(202);
    const { data } = (await response.json()) as {
      data: { replyId: string; messageId: string; text: string; status: string };
    };
    expect(data).toMatchObject({
      messageId: userMessage.id,
      text: 'Name a fruit',
      status: 'answering',
    });

    // Another client of the room sees the message with its new text (same id), then the new answer.
    expect(await editedSeen).toMatchObject({
      text: 'Name a fruit',
      metadata: { editedAt: expect.any(String) },
    });
    expect(await answerSeen).toMatchObject({
      id: data.replyId,
      text: 'Answer to Name a fruit',
      metadata: { regenerated: true },
    });

    // Stored: the message once, with its new text and its earlier one; both answers, the new one regenerated.
    const stored = await history(channelId);
    const messages = stored.filter((message) => message.id === userMessage.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.content).toBe('Name a fruit');
    expect(messages[0]!.metadata.edits).toEqual([
      { text: 'Name a colour', until: expect.any(String) },
    ]);
    const answers = stored.filter((message) => message.in_reply_to === userMessage.id);
    expect(answers.map((message) => message.content).sort()).toEqual([
      'Answer to Name a fruit',
      'First answer',
    ]);

    // The model answering again saw the new text, neither the old text nor the answer it replaces.
    const prompt = JSON.stringify(
      model.requests.slice(asked).find((request) => !lastText(request).startsWith('Write a short')),
    );
    expect(prompt).toContain('Name a fruit');
    expect(prompt).not.toContain('Name a colour');
    expect(prompt).not.toContain('First answer');
  });

  it('refuses bad input with 4xx and changes nothing', async () => {
    const channelId = randomUUID();
    answering(model, 'Greeting', () => 'An answer');
    const userMessage = await send(channelId, 'Hello');
    const before = await history(channelId);
    const reply = before.find((message) => message.in_reply_to === userMessage.id)!;

    const statuses = async (...responses: Promise<Response>[]) =>
      (await Promise.all(responses)).map((response) => response.status);
    expect(
      await statuses(
        edit(channelId, userMessage.id, {}), // no text
        edit(channelId, userMessage.id, { text: '   ' }), // empty
        edit(channelId, userMessage.id, { text: 42 }), // not text
        edit(channelId, userMessage.id, 'not json'),
        edit(channelId, 'not-a-uuid', { text: 'Hi' }),
        edit('not-a-uuid', userMessage.id, { text: 'Hi' }),
      ),
    ).toEqual([400, 400, 400, 400, 400, 400]);
    expect(
      await statuses(
        edit(randomUUID(), userMessage.id, { text: 'Hi' }), // another channel
        edit(channelId, randomUUID(), { text: 'Hi' }), // no such message
        edit(channelId, reply.id, { text: 'Hi' }), // an agent's reply
      ),
    ).toEqual([404, 404, 404]);
    const after = await history(channelId);
    expect(after).toHaveLength(before.length);
    expect(after.find((message) => message.id === userMessage.id)?.content).toBe('Hello');
  });
});

// A channel made as `New chat` (as the chat page makes them) is named after its first message once it is
// answered: by the model's short summary, else by the message's first words. The name reaches the channel's room
// and no other socket; a name a person gave is kept; a channel made without a name costs no naming call.
describe('channel names from the first message', () => {
  const model = new ScriptedModel();
  let test: TestServer;
  let member: TestSocket;
  let outsider: TestSocket;
  const heardByOutsider: unknown[] = [];

  beforeAll(async () => {
    test = await startTestServer({ model, syncTimeoutMs: 60_000, rateLimit: false });
    member = await connectClient(test.url, 'websocket');
    outsider = await connectClient(test.url, 'websocket');
    outsider.on('channelUpdated', (channel) => heardByOutsider.push(channel));
  });
  afterAll(async () => {
    member?.disconnect();
    outsider?.disconnect();
    await test?.[Symbol.asyncDispose]();
  });

  const channelName = async (channelId: string) => {
    const response = await fetch(`${test.url}/api/messaging/channels/${channelId}`);
    return ((await response.json()) as { data: { name: string } }).data.name;
  };
  const create = async (name: string) => {
    const channelId = randomUUID();
    const created = await fetch(`${test.url}/api/messaging/channels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: channelId, name }),
    });
    expect(created.status).toBe(201);
    expect(await joinRoom(member, channelId, 'user-1')).toEqual({
      status: 'ok',
      roomId: channelId,
    });
    return channelId;
  };
  const send = (channelId: string, text: string) =>
    fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text, entityId: 'user-1', mode: 'sync' }),
    });
  const namingRequests = (from: number) =>
    model.requests.slice(from).filter((request) => lastText(request).startsWith('Write a short'));

  it('renames a `New chat` by the model’s summary of its first message, told to its room only', async () => {
    const channelId = await create('New chat');
    answering(model, '"Why CI builds fail."', () => 'Usually the environment.');
    const renamed = nextEvent(member, 'channelUpdated', (channel) => channel.id === channelId);
    const sent = await send(channelId, 'Why does my build fail on CI only? It passes locally.');
    expect(sent.status).toBe(200);
    expect(await renamed).toMatchObject({ id: channelId, name: 'Why CI builds fail' });
    expect(await channelName(channelId)).toBe('Why CI builds fail');

    // A second message does not rename it again.
    answering(model, 'Something else entirely', () => 'Sure.');
    expect((await send(channelId, 'And on Windows?')).status).toBe(200);
    expect(await channelName(channelId)).toBe('Why CI builds fail');
    // A socket not in the channel's room heard nothing of it.
    expect(heardByOutsider).toEqual([]);
  });

  it('takes the first words when the model answers with no name for the message', async () => {
    const channelId = await create('New chat');
    answering(model, 'ok', () => 'ok');
    const renamed = nextEvent(member, 'channelUpdated', (channel) => channel.id === channelId);
    const text =
      'Please review the retry logic in the webhook dispatcher and tell me whether the backoff is bounded';
    expect((await send(channelId, text)).status).toBe(200);
    const channel = await renamed;
    expect(channel.name).toBe('Please review the retry logic in the webhook dispatcher and…');
    expect(channel.name).not.toMatch(/[0-9a-f]{8}/);
  });

  it('keeps a name a person gave, and names no channel made by its first message', async () => {
    answering(model, 'Some summary words', () => 'Fine.');
    const asked = model.requests.length;
    const given = await create('Release notes');
    const byFirstMessage = randomUUID();
    expect((await send(given, 'Some words to summary')).status).toBe(200);
    expect((await send(byFirstMessage, 'Some words to summary')).status).toBe(200);
    // A `New chat` answered after them is named; the namer took the two before it.
    const last = await create('New chat');
    const renamed = nextEvent(member, 'channelUpdated', (channel) => channel.id === last);
    expect((await send(last, 'Some words to summary')).status).toBe(200);
    expect((await renamed).name).toBe('Some summary words');
    expect(await channelName(given)).toBe('Release notes');
    expect(await channelName(byFirstMessage)).toBe(`Chat ${byFirstMessage.slice(0, 8)}`);
    expect(namingRequests(asked)).toHaveLength(1);
  });
});

// Only the author of a message, or an admin, may edit it.
describe('who may edit a message', () => {
  const SECRET = 'edit-message-test-secret-of-forty-chars!!';
  const OPERATOR = 'edit-message-operator-token';
  const secret = new TextEncoder().encode(SECRET);
  const idOf = (person: string) => entityIdOf('urn:parley:shared-secret', person);
  const tokenFor = (subject: string) =>
    new SignJWT({ roles: ['user'], name: subject })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(secret);
  const model = new ScriptedModel();
  let test: TestServer;

  beforeAll(async () => {
    test = await startTestServer({
      model,
      syncTimeoutMs: 60_000,
      rateLimit: false,
      authToken: OPERATOR,
      env: { AUTH_JWT_SECRET: SECRET },
    });
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  const as = async (person: string) => ({
    'content-type': 'application/json',
    authorization: `Bearer ${person === 'operator' ? OPERATOR : await tokenFor(person)}`,
  });

  it('lets the author and an admin edit; a member who did not write it, or a stranger, gets 403', async () => {
    answering(model, 'Plans', () => 'Noted.');
    const channelId = randomUUID();
    const sent = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: await as('alice'),
      body: JSON.stringify({ text: 'Plan the week', mode: 'sync' }),
    });
    expect(sent.status).toBe(200);
    const { userMessage } = (await sent.json()) as { userMessage: { id: string } };
    // Bob is a member of Alice's channel, Carol is not.
    const added = await fetch(`${test.url}/api/messaging/channels/${channelId}/participants`, {
      method: 'POST',
      headers: await as('alice'),
      body: JSON.stringify({ participantId: idOf('bob') }),
    });
    expect(added.status).toBe(201);

    const editAs = async (person: string, text: string) =>
      fetch(`${test.url}/api/messaging/channels/${channelId}/messages/${userMessage.id}/edit`, {
        method: 'POST',
        headers: await as(person),
        body: JSON.stringify({ text }),
      });
    const unauthenticated = await fetch(
      `${test.url}/api/messaging/channels/${channelId}/messages/${userMessage.id}/edit`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'x' }),
      },
    );
    expect(unauthenticated.status).toBe(401);
    expect((await editAs('bob', 'Bob was here')).status).toBe(403);
    expect((await editAs('carol', 'Carol was here')).status).toBe(403);
    expect((await editAs('alice', 'Plan the month')).status).toBe(202);
    expect((await editAs('operator', 'Plan the year')).status).toBe(202);

    const history = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      headers: await as('alice'),
    });
    const { data } = (await history.json()) as {
      data: { messages: { id: string; content: string; metadata: { edits?: unknown[] } }[] };
    };
    const message = data.messages.find((each) => each.id === userMessage.id)!;
    expect(message.content).toBe('Plan the year');
    expect(message.metadata.edits).toHaveLength(2);
  });
});
