import type { RoomApprovalRequest, ToolCall, ToolResult } from '@parley/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ROOM_EVENT_SCHEMAS, type RoomEventListener } from './room-events';

const ids = {
  messageId: 'r1',
  roomId: '0b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c',
  channelId: '0b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c',
  agentId: 'a1',
  agentName: 'Eliza',
  toolCallId: 'c1',
  toolName: 'LOOKUP',
};

describe('room events', () => {
  it('include toolCall and toolResult, typed and checked against core', () => {
    expectTypeOf<Parameters<RoomEventListener<'toolCall'>>[0]>().toEqualTypeOf<ToolCall>();
    expectTypeOf<Parameters<RoomEventListener<'toolResult'>>[0]>().toEqualTypeOf<ToolResult>();
    expect(ROOM_EVENT_SCHEMAS.toolCall.parse({ ...ids, input: { q: 'tea' } })).toEqual({
      ...ids,
      input: { q: 'tea' },
    });
    expect(ROOM_EVENT_SCHEMAS.toolResult.parse({ ...ids, output: { text: 'hot' } })).toEqual({
      ...ids,
      output: { text: 'hot' },
    });
    expect(ROOM_EVENT_SCHEMAS.toolResult.parse({ ...ids, error: 'Timed out' })).toEqual({
      ...ids,
      error: 'Timed out',
    });
    // A payload without its room is dropped (and reported to onInvalidEvent) like any other room event.
    expect(ROOM_EVENT_SCHEMAS.toolCall.safeParse({ ...ids, roomId: 1, input: {} }).success).toBe(
      false,
    );
  });

  it('include approvalRequest, typed and checked against core', () => {
    expectTypeOf<
      Parameters<RoomEventListener<'approvalRequest'>>[0]
    >().toEqualTypeOf<RoomApprovalRequest>();
    const request = { ...ids, input: { target: 'prod' }, expiresAt: '2030-01-01T00:00:00.000Z' };
    expect(ROOM_EVENT_SCHEMAS.approvalRequest.parse(request)).toEqual(request);
    // Its room is what the client filters on; a request without its expiry is not one.
    expect(ROOM_EVENT_SCHEMAS.approvalRequest.safeParse({ ...request, roomId: 1 }).success).toBe(
      false,
    );
    const { expiresAt: _expiresAt, ...noExpiry } = request;
    expect(ROOM_EVENT_SCHEMAS.approvalRequest.safeParse(noExpiry).success).toBe(false);
  });
});
