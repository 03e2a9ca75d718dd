import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  answerFromResults,
  startLoopServer,
  weatherAction,
  type LoopFixture,
} from '../../../test/agent-loop-fixture';
import { connectClient, joinRoom, nextEvent } from '../../../test/socket-client';
import { parseSse } from '../../../test/sse';
import type { ModelRequest, ModelToolCall } from '../../models/model-provider';

/** Makes `calls` when the conversation ends with the user's message; answers once results came back. */
const callFirst = (calls: ModelToolCall[]) => (request: ModelRequest) =>
  request.messages.at(-1)?.role === 'user' && request.messages.at(-1)?.content !== 'hello'
    ? calls
    : undefined;

const call = (id: string, city: string): ModelToolCall => ({
  toolCallId: id,
  toolName: 'GET_WEATHER',
  input: JSON.stringify({ city }),
});

interface PausedBody {
  replyId: string;
  agentResponse: { text: string; toolCalls: { toolCallId: string }[] };
  awaitingApproval?: { replyId: string; toolCallId: string; toolName: string; input: unknown }[];
}

describe('approvals, from outside', () => {
  let loop: LoopFixture;

  beforeAll(async () => {
    // Paris needs a person; any other city does not.
    loop = await startLoopServer(
      (calls) => [
        weatherAction(calls, {
          needsApproval: (input: Record<string, unknown>) => input.city === 'Paris',
        }),
      ],
      { approvals: { timeoutMs: 60_000, sweepMs: 100 } },
    );
  });
  afterAll(() => loop.test[Symbol.asyncDispose]());
  beforeEach(() => {
    loop.model.behaviour = {
      toolCalls: callFirst([call('call_1', 'Paris')]),
      reply: (request) =>
        request.messages.at(-1)?.content === 'hello' ? 'Hi!' : answerFromResults(request),
      plain: true,
    };
    loop.calls.length = 0;
  });

  const decide = (replyId: string, body: Record<string, unknown>) =>
    fetch(`${loop.test.url}/api/messaging/replies/${replyId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const events = async (replyId: string) =>
    parseSse(
      await (await fetch(`${loop.test.url}/api/messaging/replies/${replyId}/events`)).text(),
    );
  const pausedSync = async (channelId: string) => {
    const response = await loop.send(channelId, { text: 'weather?', mode: 'sync' });
    expect(response.status).toBe(202);
    return (await response.json()) as PausedBody;
  };

  it('the action does not run until approved; the channel answers meanwhile; the reply goes on under its id', async () => {
    const channelId = loop.channel();
    const paused = await pausedSync(channelId);
    expect(paused.awaitingApproval).toEqual([
      expect.objectContaining({
        replyId: paused.replyId,
        toolCallId: 'call_1',
        toolName: 'GET_WEATHER',
        input: { city: 'Paris' },
      }),
    ]);
    expect(loop.calls).toEqual([]);

    // The paused reply does not hold its channel.
    const other = await loop.sync(channelId, 'hello');
    expect(other.agentResponse.text).toBe('Hi!');
    expect(loop.calls).toEqual([]);

    const decided = await decide(paused.replyId, { toolCallId: 'call_1', approved: true });
    expect(decided.status).toBe(202);
    expect(((await decided.json()) as { data: unknown }).data).toEqual({
      replyId: paused.replyId,
      toolCallId: 'call_1',
      status: 'approved',
    });

    const followed = await events(paused.replyId);
    const done = followed.find((event) => event.event === 'done')?.data as { text: string };
    expect(done.text).toContain('Sunny in Paris');
    expect(loop.calls.map((each) => each.parameters)).toEqual([{ city: 'Paris' }]);
    const history = (await (
      await fetch(`${loop.test.url}/api/messaging/channels/${channelId}/messages`)
    ).json()) as {
      data: { messages: { id: string; content: string }[] };
    };
    expect(
      history.data.messages.find((message) => message.id === paused.replyId)?.content,
    ).toContain('Sunny in Paris');
  });

  it("a denial reaches the model as the call's result, with the reason, and it answers", async () => {
    const paused = await pausedSync(loop.channel());
    const denied = await decide(paused.replyId, {
      toolCallId: 'call_1',
      approved: false,
      reason: 'not today',
    });
    expect(denied.status).toBe(202);
    const done = (await events(paused.replyId)).find((event) => event.event === 'done')?.data as {
      text: string;
      toolCalls: { error?: string }[];
    };
    expect(done.text).toContain('A person denied this call: not today');
    expect(done.toolCalls[0]?.error).toBe('A person denied this call: not today');
    expect(loop.calls).toEqual([]);
  });

  it('a policy that answers false lets the call run at once', async () => {
    loop.model.behaviour.toolCalls = callFirst([call('call_1', 'Oslo')]);
    const reply = await loop.sync(loop.channel(), 'weather?');
    expect(reply.agentResponse.text).toContain('Sunny in Oslo');
  });

  it('20 concurrent decisions of one call: exactly one is taken, the others are 409', async () => {
    const paused = await pausedSync(loop.channel());
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        decide(paused.replyId, { toolCallId: 'call_1', approved: index % 2 === 0 }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 202)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    await events(paused.replyId);
    expect(loop.calls.length).toBeLessThanOrEqual(1);
  });

  it('several calls of one step are each decided; the reply goes on after the last', async () => {
    loop.model.behaviour.toolCalls = callFirst([
      call('call_a', 'Paris'),
      call('call_b', 'Paris'),
      call('call_c', 'Rome'),
    ]);
    const paused = await pausedSync(loop.channel());
    expect(paused.awaitingApproval?.map((request) => request.toolCallId)).toEqual([
      'call_a',
      'call_b',
    ]);
    // Rome needed nobody: it ran before the pause.
    expect(paused.agentResponse.toolCalls.map((each) => each.toolCallId)).toEqual(['call_c']);
    expect((await decide(paused.replyId, { toolCallId: 'call_a', approved: true })).status).toBe(
      202,
    );
    expect((await decide(paused.replyId, { toolCallId: 'call_a', approved: true })).status).toBe(
      409,
    );
    expect((await decide(paused.replyId, { toolCallId: 'call_b', approved: false })).status).toBe(
      202,
    );
    const done = (await events(paused.replyId)).find((event) => event.event === 'done')?.data as {
      toolCalls: { toolCallId: string; error?: string }[];
    };
    expect(done.toolCalls.map((each) => [each.toolCallId, each.error === undefined])).toEqual([
      ['call_a', true],
      ['call_b', false],
      ['call_c', true],
    ]);
    expect(loop.calls.map((each) => each.parameters)).toEqual([
      { city: 'Rome' },
      { city: 'Paris' },
    ]);
  });

  it('stream: the response stays open through the pause and ends with done after the decision', async () => {
    const response = await loop.send(loop.channel(), { text: 'weather?', mode: 'stream' });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let body = '';
    while (!body.includes('event: approval_request')) {
      const { value } = await reader.read();
      body += decoder.decode(value);
    }
    const request = parseSse(body).find((event) => event.event === 'approval_request')!.data as {
      replyId: string;
    };
    expect((await decide(request.replyId, { toolCallId: 'call_1', approved: true })).status).toBe(
      202,
    );
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      body += decoder.decode(value);
    }
    const names = parseSse(body).map((event) => event.event);
    const distinct = names.filter(
      (name, index) => name !== 'chunk' || names[index - 1] !== 'chunk',
    );
    expect(distinct).toEqual([
      'user_message',
      'tool_call',
      'approval_request',
      'tool_result',
      'chunk',
      'done',
    ]);
  });

  it('bad decisions: 404 unknown reply or call, 400 bad body, 409 after a cancel', async () => {
    expect((await decide(randomUUID(), { toolCallId: 'call_1', approved: true })).status).toBe(404);
    const paused = await pausedSync(loop.channel());
    expect((await decide(paused.replyId, { toolCallId: 'nope', approved: true })).status).toBe(404);
    expect((await decide(paused.replyId, { toolCallId: 'call_1', approved: 'yes' })).status).toBe(
      400,
    );
    expect(
      (await decide(paused.replyId, { toolCallId: 'call_1', approved: true, extra: 1 })).status,
    ).toBe(400);
    const cancelled = await fetch(
      `${loop.test.url}/api/messaging/replies/${paused.replyId}/cancel`,
      { method: 'POST' },
    );
    expect(cancelled.status).toBe(202);
    expect((await decide(paused.replyId, { toolCallId: 'call_1', approved: true })).status).toBe(
      409,
    );
    const followed = await events(paused.replyId);
    expect(followed.at(-1)).toMatchObject({ event: 'error', data: { code: 'CANCELLED' } });
    expect(loop.calls).toEqual([]);
  });

  it('the socket: the room hears the request; only a member of the room decides', async () => {
    const channelId = loop.channel();
    const member = await connectClient(loop.test.url, 'websocket');
    const stranger = await connectClient(loop.test.url, 'websocket');
    try {
      await joinRoom(member, channelId, 'user-1');
      const heard = nextEvent(member, 'approvalRequest');
      const paused = await pausedSync(channelId);
      expect(await heard).toMatchObject({
        messageId: paused.replyId,
        toolCallId: 'call_1',
        channelId,
      });
      const refused = await stranger.emitWithAck('decideApproval', {
        replyId: paused.replyId,
        roomId: channelId,
        toolCallId: 'call_1',
        approved: true,
      });
      expect(refused).toMatchObject({ status: 'error', error: { code: 'FORBIDDEN' } });
      const answered = nextEvent(
        member,
        'messageBroadcast',
        (message) => message.id === paused.replyId,
      );
      const ack = await member.emitWithAck('decideApproval', {
        replyId: paused.replyId,
        roomId: channelId,
        toolCallId: 'call_1',
        approved: true,
      });
      expect(ack).toMatchObject({ status: 'ok', decision: 'approved' });
      expect((await answered).text).toContain('Sunny in Paris');
    } finally {
      member.disconnect();
      stranger.disconnect();
    }
  });
});

describe('approvals that expire', () => {
  let loop: LoopFixture;
  beforeAll(async () => {
    loop = await startLoopServer((calls) => [weatherAction(calls, { needsApproval: true })], {
      approvals: { timeoutMs: 300, sweepMs: 50 },
    });
    loop.model.behaviour = {
      toolCalls: callFirst([call('call_1', 'Paris')]),
      reply: answerFromResults,
      plain: true,
    };
  });
  afterAll(() => loop.test[Symbol.asyncDispose]());

  it('the model is told the request expired, and answers; a late decision is 409', async () => {
    const response = await loop.send(loop.channel(), { text: 'weather?', mode: 'sync' });
    const paused = (await response.json()) as PausedBody;
    const done = parseSse(
      await (await fetch(`${loop.test.url}/api/messaging/replies/${paused.replyId}/events`)).text(),
    ).find((event) => event.event === 'done')?.data as { text: string };
    expect(done.text).toContain('The approval request expired');
    const late = await fetch(`${loop.test.url}/api/messaging/replies/${paused.replyId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ toolCallId: 'call_1', approved: true }),
    });
    expect(late.status).toBe(409);
    expect(loop.calls).toEqual([]);
  });
});
