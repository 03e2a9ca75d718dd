import { describe, expect, it } from 'vitest';
import { parseOrThrow } from '../errors/validation';
import { SERVER_EVENT_SCHEMAS } from '../socket/event-schemas';
import { agentMessageSchema, storedMessageSchema } from './agent-message';
import { agentResponseSchema } from './channel-message';
import { MAX_JSON_DEPTH } from './common';
import { streamEventSchemas } from './stream-events';
import { MAX_TOOL_CALLS_PER_REPLY, toolCallRecordSchema } from './tool-calls';

const channelId = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const call = {
  toolCallId: 'call_1',
  toolName: 'LOOKUP',
  input: { q: 'tea' },
  output: { text: 'hot' },
};
const failed = {
  toolCallId: 'call_2',
  toolName: 'MADE_UP',
  input: {},
  error: 'Unknown tool MADE_UP',
};

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

describe('tool calls on POST /api/messaging/submit', () => {
  const submit = { channel_id: channelId, author_id: 'agent', content: 'done' };

  it('refuses raw_message.toolCalls, whatever its shape, saying why', () => {
    for (const toolCalls of [[call], [], 'x', null]) {
      const parsed = agentMessageSchema.safeParse({
        ...submit,
        raw_message: { text: 'done', toolCalls },
      });
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues).toEqual([
        expect.objectContaining({
          path: ['raw_message', 'toolCalls'],
          message: 'tool calls are recorded by the server only',
        }),
      ]);
    }
    expect(() =>
      parseOrThrow(agentMessageSchema, { ...submit, raw_message: { toolCalls: [] } }, 'message'),
    ).toThrow(/raw_message\.toolCalls.*recorded by the server only/);
  });

  it('still takes text, thought, actions and free keys', () => {
    const message = agentMessageSchema.parse({
      ...submit,
      raw_message: { text: 'done', thought: 't', actions: ['REPLY'], extra: 1 },
    });
    expect(message.raw_message).toEqual({
      text: 'done',
      thought: 't',
      actions: ['REPLY'],
      extra: 1,
    });
  });
});

describe('tool calls as stored and answered', () => {
  const stored = {
    id: 'm',
    channel_id: channelId,
    server_id: channelId,
    author_id: 'agent',
    author_name: 'Ada',
    content: 'It is hot.',
    source_type: 'agent_response',
    metadata: {},
    in_reply_to: null,
    created_at: '2025-01-01T00:00:00.000Z',
  };

  it('a stored message reads back with its raw_message.toolCalls', () => {
    const raw = { text: 'It is hot.', actions: ['LOOKUP', 'REPLY'], toolCalls: [call, failed] };
    expect(storedMessageSchema.parse({ ...stored, raw_message: raw }).raw_message).toEqual(raw);
    expect(
      storedMessageSchema.safeParse({ ...stored, raw_message: { toolCalls: [{ toolName: 1 }] } })
        .success,
    ).toBe(false);
  });

  it('done and agentResponse carry toolCalls, read as empty from a server that leaves them out', () => {
    const reply = { text: 'It is hot.', actions: ['LOOKUP', 'REPLY'] };
    expect(streamEventSchemas.done.parse(reply)).toEqual({ ...reply, toolCalls: [] });
    expect(agentResponseSchema.parse(reply)).toEqual({ ...reply, toolCalls: [] });
    const withCalls = { ...reply, toolCalls: [call, failed] };
    expect(streamEventSchemas.done.parse(withCalls)).toEqual(withCalls);
    expect(agentResponseSchema.parse(withCalls)).toEqual(withCalls);
  });

  it('tool_result is an output or an error', () => {
    const ids = { toolCallId: 'call_1', toolName: 'LOOKUP' };
    expect(streamEventSchemas.tool_result.parse({ ...ids, output: [1] })).toEqual({
      ...ids,
      output: [1],
    });
    expect(streamEventSchemas.tool_result.parse({ ...ids, error: 'Timed out' })).toEqual({
      ...ids,
      error: 'Timed out',
    });
    expect(streamEventSchemas.tool_result.safeParse({ ...ids, error: 7 }).success).toBe(false);
    expect(streamEventSchemas.tool_call.parse({ ...ids, input: 'not json' })).toEqual({
      ...ids,
      input: 'not json',
    });
  });

  it('the socket events name the reply, the room and the agent', () => {
    const ids = {
      messageId: 'r',
      roomId: channelId,
      channelId,
      agentId: 'a',
      agentName: 'Ada',
      toolCallId: 'call_1',
      toolName: 'LOOKUP',
    };
    expect(SERVER_EVENT_SCHEMAS.toolCall.parse({ ...ids, input: { q: 1 } })).toEqual({
      ...ids,
      input: { q: 1 },
    });
    expect(SERVER_EVENT_SCHEMAS.toolResult.parse({ ...ids, error: 'no' })).toEqual({
      ...ids,
      error: 'no',
    });
    expect(SERVER_EVENT_SCHEMAS.toolCall.safeParse({ ...ids, roomId: undefined }).success).toBe(
      false,
    );
  });

  it('bounds names, errors, JSON and the number of calls', () => {
    const refused = (record: unknown) => !toolCallRecordSchema.safeParse(record).success;
    expect(refused({ ...call, toolName: 'x'.repeat(257) })).toBe(true);
    expect(refused({ ...call, toolCallId: 'x'.repeat(257) })).toBe(true);
    expect(refused({ ...call, toolName: 'a\u0000' })).toBe(true);
    expect(refused({ ...failed, error: 'x'.repeat(100_001) })).toBe(true);
    expect(refused({ ...call, input: nested(MAX_JSON_DEPTH + 1) })).toBe(true);
    expect(refused({ ...call, output: { 'k\uD800': 1 } })).toBe(true);
    expect(refused({ ...call, output: 'x'.repeat(300_000) })).toBe(true);
    expect(refused(call)).toBe(false);
    const many = Array.from({ length: MAX_TOOL_CALLS_PER_REPLY + 1 }, () => call);
    expect(agentResponseSchema.safeParse({ text: '', actions: [], toolCalls: many }).success).toBe(
      false,
    );
  });
});
