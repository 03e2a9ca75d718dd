import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_ID } from '../constants';
import { agentMessageSchema } from './agent-message';
import { channelHistoryQuerySchema, channelMessageRequestSchema } from './channel-message';
import { routeDefinitionSchema } from './route';
import {
  roomJoiningPayloadSchema,
  sendMessagePayloadSchema,
  socketAckSchema,
} from './socket-payloads';

const channelId = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

describe('agent message (POST /api/messaging/submit)', () => {
  it('applies the defaults of the spec', () => {
    const message = agentMessageSchema.parse({
      channel_id: channelId,
      author_id: 'a',
      content: 'hi',
    });
    expect(message).toMatchObject({
      server_id: DEFAULT_SERVER_ID,
      source_type: 'api',
      metadata: {},
    });
  });

  it('accepts the full shape with attachments and keeps free metadata keys', () => {
    const message = agentMessageSchema.parse({
      channel_id: channelId,
      server_id: DEFAULT_SERVER_ID,
      author_id: 'agent',
      content: 'done',
      source_type: 'agent_response',
      raw_message: { text: 'done', thought: 't', actions: ['REPLY'] },
      metadata: {
        agent_id: 'x',
        agentName: 'Ada',
        attachments: [{ filename: 'a', size: 1, mimeType: 'text/plain' }],
        extra: 1,
      },
    });
    expect(message.metadata.extra).toBe(1);
  });

  it('normalises UUID case so that ids compare exactly', () => {
    const message = agentMessageSchema.parse({
      channel_id: channelId.toUpperCase(),
      author_id: 'a',
      content: '',
    });
    expect(message.channel_id).toBe(channelId);
  });

  it('rejects a non-UUID channel, an empty author, a bad attachment', () => {
    const base = { channel_id: channelId, author_id: 'a', content: 'x' };
    expect(agentMessageSchema.safeParse({ ...base, channel_id: 'general' }).success).toBe(false);
    expect(agentMessageSchema.safeParse({ ...base, author_id: '  ' }).success).toBe(false);
    expect(
      agentMessageSchema.safeParse({
        ...base,
        metadata: { attachments: [{ filename: 'a', size: -1, mimeType: 'x' }] },
      }).success,
    ).toBe(false);
  });
});

describe('channel messages', () => {
  it('defaults the mode to websocket and refuses unknown modes and empty text', () => {
    expect(channelMessageRequestSchema.parse({ text: 'hi', entityId: 'u' }).mode).toBe('websocket');
    expect(
      channelMessageRequestSchema.safeParse({ text: 'hi', entityId: 'u', mode: 'fax' }).success,
    ).toBe(false);
    expect(channelMessageRequestSchema.safeParse({ text: '', entityId: 'u' }).success).toBe(false);
  });

  it('bounds the history query', () => {
    expect(channelHistoryQuerySchema.parse({})).toEqual({ limit: 50 });
    expect(channelHistoryQuerySchema.parse({ limit: '10' }).limit).toBe(10);
    expect(channelHistoryQuerySchema.safeParse({ limit: '500' }).success).toBe(false);
    expect(channelHistoryQuerySchema.safeParse({ before: 'yesterday' }).success).toBe(false);
  });
});

describe('socket payloads', () => {
  it('validates ROOM_JOINING and SEND_MESSAGE with their defaults', () => {
    expect(roomJoiningPayloadSchema.safeParse({ roomId: channelId, entityId: 'u' }).success).toBe(
      true,
    );
    expect(roomJoiningPayloadSchema.safeParse({ roomId: 'lobby', entityId: 'u' }).success).toBe(
      false,
    );
    const send = sendMessagePayloadSchema.parse({
      senderId: 'u',
      senderName: 'U',
      message: 'hi',
      roomId: channelId,
    });
    expect(send).toMatchObject({ source: 'socket', attachments: [], metadata: {} });
  });

  it('describes both acknowledgment shapes', () => {
    expect(socketAckSchema.safeParse({ status: 'ok', roomId: channelId }).success).toBe(true);
    expect(
      socketAckSchema.safeParse({ status: 'error', error: { code: 'BAD_REQUEST', message: 'x' } })
        .success,
    ).toBe(true);
    expect(socketAckSchema.safeParse({ status: 'error' }).success).toBe(false);
  });
});

describe('route definitions', () => {
  const handler = () => undefined;

  it('accepts every route type of the spec', () => {
    for (const type of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      expect(routeDefinitionSchema.safeParse({ type, path: '/x', handler }).success).toBe(true);
    }
    expect(
      routeDefinitionSchema.safeParse({ type: 'STATIC', path: '/s', filePath: './public' }).success,
    ).toBe(true);
  });

  it('needs a handler for methods and a filePath for STATIC, and a path starting with /', () => {
    expect(routeDefinitionSchema.safeParse({ type: 'POST', path: '/x' }).success).toBe(false);
    expect(routeDefinitionSchema.safeParse({ type: 'STATIC', path: '/s' }).success).toBe(false);
    expect(routeDefinitionSchema.safeParse({ type: 'GET', path: 'x', handler }).success).toBe(
      false,
    );
    expect(routeDefinitionSchema.safeParse({ type: 'GET', path: '/x?y', handler }).success).toBe(
      false,
    );
  });
});
