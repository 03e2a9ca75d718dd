import type { StoredMessage } from '@parley/core';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyPGliteTemplate } from '../../test/databases';
import { newMessage } from '../../test/new-message';
import { ScriptedModel } from '../../test/scripted-model';
import { parseSse } from '../../test/sse';
import { startTestServer, type TestServer } from '../../test/test-server';
import { channelId, invented, records, TEXT } from '../../test/tool-reply-fixture';
import { agentIdOf } from '../agents/agent-id';
import { createDatabase } from '../storage/create-database';
import { MessageStore } from '../storage/message-store';

describe('a stored reply with tool calls, over HTTP', () => {
  const model = new ScriptedModel();
  let test: TestServer;
  let reply: StoredMessage;

  beforeAll(async () => {
    // The reply is stored before the server starts, as the agent loop stores one that called tools.
    const database = await copyPGliteTemplate();
    const opened = createDatabase(database.location);
    await opened.migrate();
    const store = new MessageStore(opened.db);
    const question = await store.insert(newMessage(channelId, 'Weather?'));
    reply = await store.insert(
      newMessage(channelId, TEXT, {
        id: randomUUID(),
        authorId: agentIdOf({ name: 'Eliza' }),
        authorName: 'Eliza',
        sourceType: 'agent_response',
        inReplyTo: question.id,
        rawMessage: { text: TEXT, actions: ['LOOKUP', 'REPLY'], toolCalls: records },
      }),
    );
    await opened.close();
    test = await startTestServer({ model, characters: [{ name: 'Eliza' }] }, database);
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  const resume = async (lastEventId?: string) => {
    const response = await fetch(`${test.url}/api/messaging/replies/${reply.id}/events`, {
      headers: lastEventId ? { 'last-event-id': lastEventId } : {},
    });
    expect(response.status).toBe(200);
    return parseSse(await response.text());
  };

  it('streams the tool calls, their results, the text and done with toolCalls', async () => {
    const events = await resume();
    expect(events.map(({ event, id }) => [event, id])).toEqual([
      ['tool_call', `${reply.id}:-1:0:1`],
      ['tool_result', `${reply.id}:-1:0:2`],
      ['tool_call', `${reply.id}:-1:0:3`],
      ['tool_result', `${reply.id}:-1:0:4`],
      ['chunk', `${reply.id}:0:18:4`],
      ['done', `${reply.id}:end`],
    ]);
    expect(events.at(-1)!.data).toEqual({
      text: TEXT,
      actions: ['LOOKUP', 'REPLY'],
      toolCalls: records,
    });
  });

  it('resumes with Last-Event-ID in the middle of the tool parts, on both routes', async () => {
    const rest = await resume(`${reply.id}:-1:0:2`);
    expect(rest.map((event) => event.event)).toEqual(['tool_call', 'tool_result', 'chunk', 'done']);
    expect(rest[0]!.data).toEqual(invented);

    const posted = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'last-event-id': `${reply.id}:-1:0:3` },
      body: '{}',
    });
    expect(parseSse(await posted.text()).map((event) => [event.event, event.id])).toEqual([
      ['tool_result', `${reply.id}:-1:0:4`],
      ['chunk', `${reply.id}:0:18:4`],
      ['done', `${reply.id}:end`],
    ]);
  });

  it('tells a gap past the last tool part, and refuses a malformed tool count as an id', async () => {
    const past = await resume(`${reply.id}:-1:0:5`);
    expect(past.map((event) => event.event)).toEqual(['gap', 'chunk', 'done']);
    // Not an id of ours: the stream starts over, as for any id the server never wrote.
    const bad = await resume(`${reply.id}:-1:0:-1`);
    expect(bad.map((event) => event.id)).toEqual((await resume()).map((event) => event.id));
  });

  it('gives the stored toolCalls in the history', async () => {
    const response = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`);
    const data = ((await response.json()) as { data: { messages: StoredMessage[] } }).data.messages;
    expect(data[0]!.raw_message).toEqual({
      text: TEXT,
      actions: ['LOOKUP', 'REPLY'],
      toolCalls: records,
    });
  });
});
