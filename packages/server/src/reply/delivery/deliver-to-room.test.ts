import { SERVER_EVENT_SCHEMAS, type ServerToClientEventName } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { ReplyStream } from '../parts/reply-stream';
import { deliverToRoom } from './deliver-to-room';
import type { RoomBroadcaster } from './room-broadcaster';

const replyId = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
const channelId = '0b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c';

function recordingRoom() {
  const emitted: { roomId: string; event: ServerToClientEventName; payload: unknown }[] = [];
  const broadcaster: RoomBroadcaster = {
    emit: (roomId, event, ...payload) => emitted.push({ roomId, event, payload: payload[0] }),
  };
  return { broadcaster, emitted };
}

describe('deliverToRoom with tool parts', () => {
  it("emits toolCall and toolResult to the reply's room, between its chunks, in core's shapes", () => {
    const { broadcaster, emitted } = recordingRoom();
    const stream = new ReplyStream(replyId, channelId, 'question-1');
    deliverToRoom(stream, broadcaster);
    const ids = { replyId };
    const call = { toolCallId: 'c1', toolName: 'LOOKUP', step: 0 };
    stream.write({
      type: 'reply-start',
      ...ids,
      channelId,
      agentId: 'agent-1',
      agentName: 'Eliza',
      inReplyTo: 'question-1',
    });
    stream.write({ type: 'text-delta', ...ids, delta: 'Checking. ', index: 0 });
    stream.write({ type: 'tool-call', ...ids, ...call, input: { q: 'weather' } });
    stream.write({ type: 'tool-result', ...ids, ...call, output: { text: 'hot' } });
    stream.write({ type: 'tool-call', ...ids, ...call, toolCallId: 'c2', input: {} });
    stream.write({ type: 'tool-result', ...ids, ...call, toolCallId: 'c2', error: 'Timed out' });
    stream.write({ type: 'error', ...ids, code: 'CANCELLED', message: 'The reply was cancelled' });

    expect(emitted.map((each) => each.event)).toEqual([
      'messageStreamChunk',
      'toolCall',
      'toolResult',
      'toolCall',
      'toolResult',
      'messageError',
      'messageComplete',
    ]);
    expect(emitted.every((each) => each.roomId === channelId)).toBe(true);
    const room = { messageId: replyId, roomId: channelId, channelId };
    const agent = { agentId: 'agent-1', agentName: 'Eliza' };
    expect(emitted.slice(1, 5).map((each) => each.payload)).toEqual([
      { ...room, ...agent, toolCallId: 'c1', toolName: 'LOOKUP', input: { q: 'weather' } },
      { ...room, ...agent, toolCallId: 'c1', toolName: 'LOOKUP', output: { text: 'hot' } },
      { ...room, ...agent, toolCallId: 'c2', toolName: 'LOOKUP', input: {} },
      { ...room, ...agent, toolCallId: 'c2', toolName: 'LOOKUP', error: 'Timed out' },
    ]);
    for (const { event, payload } of emitted) {
      const parsed = SERVER_EVENT_SCHEMAS[event].safeParse(payload);
      expect(parsed.success, event).toBe(true);
      expect(parsed.data, event).toEqual(payload);
    }
  });
});

describe("deliverToRoom and elizaOS's web client", () => {
  const write = (stream: ReplyStream, source: string) => {
    const ids = { replyId };
    const call = { toolCallId: 'c1', toolName: 'HELLO_WORLD', step: 0 };
    stream.write({
      type: 'reply-start',
      ...ids,
      channelId,
      agentId: 'agent-1',
      agentName: 'Eliza',
      inReplyTo: 'question-1',
      source,
    });
    stream.write({ type: 'tool-call', ...ids, ...call, input: {} });
    stream.write({ type: 'tool-result', ...ids, ...call, output: { text: 'Hello world!' } });
  };

  it('answers a client_chat message with action notices that start and end under one id', () => {
    const { broadcaster, emitted } = recordingRoom();
    const stream = new ReplyStream(replyId, channelId, 'question-1');
    deliverToRoom(stream, broadcaster);
    write(stream, 'client_chat');
    const notices = emitted
      .filter((each) => each.event === 'messageBroadcast')
      .map((each) => each.payload as Record<string, unknown>);
    expect(notices).toHaveLength(2);
    expect(notices[0]).toMatchObject({
      source: 'agent_action',
      senderId: 'agent-1',
      text: 'Executing action: HELLO_WORLD',
      actions: ['HELLO_WORLD'],
      rawMessage: { actionStatus: 'executing', type: 'agent_action' },
    });
    expect(notices[1]).toMatchObject({
      id: notices[0]!.id,
      text: 'Hello world!',
      rawMessage: { actionStatus: 'completed', actionId: notices[0]!.id },
    });
    for (const payload of notices) {
      expect(SERVER_EVENT_SCHEMAS.messageBroadcast.safeParse(payload).success).toBe(true);
    }
  });

  it("sends none to other clients' messages", () => {
    const { broadcaster, emitted } = recordingRoom();
    const stream = new ReplyStream(replyId, channelId, 'question-1');
    deliverToRoom(stream, broadcaster);
    write(stream, 'api');
    expect(emitted.filter((each) => each.event === 'messageBroadcast')).toEqual([]);
  });
});
