import { randomUUID } from 'node:crypto';
import {
  type ChannelStreamEvent,
  type ParleySocket,
  ParleyClientError,
  connectSocket,
  createParleyClient,
} from '@parley/client';
import type { MessageBroadcast, RoomApprovalRequest, ToolResult } from '@parley/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nextEvent } from './events';
import { approvalModel, approvalPlugin, deployedText } from '../support/approval-agent';
import { type TestServer, startServer } from '../support/start-server';

let running: TestServer;
/** Targets of the DEPLOY calls that ran. */
const ran: string[] = [];
const sockets: ParleySocket[] = [];

beforeAll(async () => {
  running = await startServer({ model: approvalModel(), plugins: [approvalPlugin(ran)] });
});
beforeEach(() => {
  ran.length = 0;
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.disconnect();
});
afterAll(() => running?.server.stop());

const message = (text: string) => ({ text, entityId: 'user-1' });

/** Reads a reply to its end with `GET /api/messaging/replies/{replyId}/events`: the `done` text. */
async function finalText(replyId: string): Promise<string> {
  const body = await (await fetch(`${running.url}/api/messaging/replies/${replyId}/events`)).text();
  const done = /event: done\nid: [^\n]*\ndata: (.*)\n/.exec(body)?.[1];
  if (!done) throw new Error(`no done event in ${body}`);
  return (JSON.parse(done) as { text: string }).text;
}

/**
 * A fetch whose first event-stream body breaks (as a dropped connection does) right after it carried an
 * `approval_request`; every later call goes through untouched.
 */
function fetchThatDropsAtTheRequest(): { fetch: typeof fetch; dropped: () => boolean } {
  let dropped = false;
  const dropping: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (dropped || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
      return response;
    }
    dropped = true;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (seen.includes('event: approval_request')) {
          await reader.cancel();
          controller.error(new TypeError('terminated'));
          return;
        }
        const { value, done } = await reader.read();
        if (done) return controller.close();
        seen += decoder.decode(value, { stream: true });
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: dropping, dropped: () => dropped };
}

describe('approvals through the client, against a real server', () => {
  it('sync: resolves with awaitingApproval; decideApproval approves once, then CONFLICT', async () => {
    const client = createParleyClient({ baseUrl: running.url });
    const paused = await client.sendMessage(randomUUID(), { ...message('deploy'), mode: 'sync' });
    expect(paused.awaitingApproval).toEqual([
      expect.objectContaining({ toolCallId: expect.any(String), toolName: 'DEPLOY' }),
    ]);
    const { replyId, toolCallId, input } = paused.awaitingApproval![0]!;
    expect(replyId).toBe(paused.replyId);
    expect(input).toEqual({ target: 'prod' });
    expect(ran).toEqual([]);

    await expect(client.decideApproval(replyId, { toolCallId, approved: true })).resolves.toEqual({
      replyId,
      toolCallId,
      status: 'approved',
    });
    const again = await client
      .decideApproval(replyId, { toolCallId, approved: false })
      .catch((error: unknown) => error);
    expect(ParleyClientError.isInstance(again) && again.code).toBe('CONFLICT');
    expect(await finalText(replyId)).toBe(`The tool said: ${deployedText('prod')}`);
    expect(ran).toEqual(['prod']);

    const unknown = await client
      .decideApproval(randomUUID(), { toolCallId, approved: true })
      .catch((error: unknown) => error);
    expect(unknown).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('stream: yields approval_request, stays open through the pause, and ends with done after a denial', async () => {
    const client = createParleyClient({ baseUrl: running.url });
    const events: ChannelStreamEvent[] = [];
    for await (const event of client.sendMessage(randomUUID(), {
      ...message('deploy please'),
      mode: 'stream',
    })) {
      events.push(event);
      if (event.event === 'approval_request') {
        const { replyId, toolCallId } = event.data;
        const decision = { toolCallId, approved: false, reason: 'not on a Friday' };
        await expect(client.decideApproval(replyId, decision)).resolves.toMatchObject({
          status: 'denied',
        });
      }
    }
    const names = events.map((event) => event.event).filter((name, i, all) => name !== all[i - 1]);
    expect(names).toEqual([
      'user_message',
      'tool_call',
      'approval_request',
      'tool_result',
      'chunk',
      'done',
    ]);
    const done = events.at(-1)!;
    if (done.event !== 'done') throw new Error('no done');
    expect(done.data.text).toContain('not on a Friday');
    expect(done.data.toolCalls[0]?.error).toContain('not on a Friday');
    expect(ran).toEqual([]);
  });

  it('stream: a connection dropped during the pause is resumed, and no event comes twice', async () => {
    const { fetch: dropping, dropped } = fetchThatDropsAtTheRequest();
    const client = createParleyClient({ baseUrl: running.url, fetch: dropping });
    const decider = createParleyClient({ baseUrl: running.url });
    const events: ChannelStreamEvent[] = [];
    for await (const event of client.sendMessage(randomUUID(), {
      ...message('deploy'),
      mode: 'stream',
    })) {
      events.push(event);
      if (event.event === 'approval_request') {
        await decider.decideApproval(event.data.replyId, {
          toolCallId: event.data.toolCallId,
          approved: true,
        });
      }
    }
    expect(dropped()).toBe(true);
    expect(events.filter((event) => event.event === 'approval_request')).toHaveLength(1);
    expect(events.filter((event) => event.event === 'tool_call')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      event: 'done',
      data: { text: `The tool said: ${deployedText('prod')}` },
    });
    expect(ran).toEqual(['prod']);
  });

  it('socket: the room hears approvalRequest; decideApproval decides; the result and answer follow', async () => {
    const socket = connectSocket({ baseUrl: running.url });
    sockets.push(socket);
    await nextEvent(socket.onConnectionChange, (state) => state.status === 'connected');
    const roomId = randomUUID();
    await socket.joinRoom(roomId, 'user-1');
    const requested = nextEvent<RoomApprovalRequest>((listener) =>
      socket.on('approvalRequest', listener),
    );
    const result = nextEvent<ToolResult>((listener) => socket.on('toolResult', listener));
    const answer = nextEvent<MessageBroadcast>(
      (listener) => socket.on('messageBroadcast', listener),
      (broadcast) => broadcast.senderId !== 'user-1',
    );
    await socket.sendMessage(roomId, { text: 'deploy', senderId: 'user-1', senderName: 'Ada' });
    const request = await requested;
    expect(request).toMatchObject({ roomId, toolName: 'DEPLOY', input: { target: 'prod' } });
    expect(ran).toEqual([]);

    await expect(
      socket.decideApproval(roomId, request.messageId, request.toolCallId, true),
    ).resolves.toEqual({
      replyId: request.messageId,
      toolCallId: request.toolCallId,
      status: 'approved',
    });
    expect(await result).toMatchObject({
      toolCallId: request.toolCallId,
      output: expect.anything(),
    });
    expect((await answer).text).toBe(`The tool said: ${deployedText('prod')}`);
    await expect(
      socket.decideApproval(roomId, request.messageId, request.toolCallId, false, 'late'),
    ).rejects.toMatchObject({ code: 'CONFLICT', status: 409 });
    // A room this client did not join: refused.
    await expect(
      socket.decideApproval(randomUUID(), request.messageId, request.toolCallId, true),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(ran).toEqual(['prod']);
  });
});
