import {
  DEFAULT_SERVER_ID,
  ParleyError,
  createChannelRequestSchema,
  entityIdSchema,
  parseOrThrow,
  uuidSchema,
  type Channel,
  type StoredMessage,
} from '@parley/core';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { toMemory } from '../../agents/to-memory';
import type { ChannelService } from '../../channels/channel-service';
import type { MemoryStore } from '../../memory/memory-store';
import { memoryView, tableNameSchema } from '../../memory/people/memory-views';
import type { ChannelSummaryStore } from '../../memory/summary/channel-summary-store';
import type { MessageStore } from '../../storage/message-store';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';
import { readJsonBody } from '../read-body';

/** What elizaOS's memory routes read and change. */
export interface ElizaMemoryRoutesOptions {
  store: MemoryStore;
  messages: MessageStore;
  channels: ChannelService;
  summaries: ChannelSummaryStore;
  agentExists: (agentId: string) => boolean;
}

/** The tables `DELETE /api/memory/{agentId}/memories` clears: elizaOS's own, and what Parley stores. */
const AGENT_TABLES = ['messages', 'facts', 'documents', 'fragments', 'knowledge', 'memories'];
/** Most rooms `listAgentRooms` answers. */
const MAX_ROOMS = 1000;

const listQuerySchema = z.object({
  tableName: tableNameSchema.default('messages'),
  roomId: uuidSchema.optional(),
  channelId: uuidSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  before: z.coerce.number().int().min(0).optional(),
  includeEmbedding: z.enum(['true', 'false']).optional(),
});

const updateBodySchema = z
  .object({
    content: z.record(z.string(), z.unknown()).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((body) => body.content !== undefined || body.metadata !== undefined, {
    error: 'give content or metadata',
  });

const createRoomBodySchema = z.object({
  name: z.string().trim().min(1, 'Room name is required').max(256),
  type: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  entityId: entityIdSchema.optional(),
});

/** A Parley channel as elizaOS's `Room`: the channel is the room, its message server the world. */
function toRoom(channel: Channel, agentId: string) {
  return {
    id: channel.id,
    agentId,
    name: channel.name,
    type: channel.type,
    source: 'parley',
    channelId: channel.id,
    messageServerId: channel.messageServerId,
    worldId: channel.messageServerId,
    createdAt: channel.createdAt,
    updatedAt: channel.updatedAt,
    metadata: channel.metadata,
  };
}

/**
 * elizaOS's memory API (`/api/memory/{agentId}/…`) as `@elizaos/api-client`'s `memory.*` calls it. Rooms are
 * Parley's channels. The `messages` table is the channel's stored messages (read only here: they are deleted
 * through the channel, `DELETE /api/messaging/channels/{id}/messages`); every other table is the memory store.
 */
export function elizaMemoryRoutes(options: ElizaMemoryRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store } = options;
  const agentOf = (c: Context<AppEnv>) => {
    const agentId = parseOrThrow(uuidSchema, c.req.param('agentId'), 'agentId');
    if (!options.agentExists(agentId)) throw new ParleyError('NOT_FOUND', 'Agent not found');
    return agentId;
  };

  const list = async (
    agentId: string,
    query: z.output<typeof listQuerySchema>,
    roomId: string | undefined,
  ) => {
    const embedding = query.includeEmbedding === 'true';
    if (query.tableName === 'messages') {
      const messages: StoredMessage[] = roomId
        ? await options.messages.list(roomId, {
            limit: query.limit,
            ...(query.before === undefined ? {} : { before: new Date(query.before) }),
          })
        : await options.messages.listByAuthor(agentId, {
            limit: query.limit,
            sources: ['agent_response'],
            ...(query.before === undefined ? {} : { to: new Date(query.before) }),
          });
      return messages.map((message) => toMemory(message, agentId));
    }
    const records = await store.get({
      agentId,
      tableName: query.tableName,
      ...(roomId === undefined ? {} : { roomId }),
      count: query.limit,
      ...(query.before === undefined ? {} : { end: query.before }),
      withoutEmbeddings: !embedding,
    });
    return records.map((record) => memoryView(record, embedding));
  };

  routes.get('/api/memory/:agentId/memories', async (c) => {
    const agentId = agentOf(c);
    const query = parseOrThrow(listQuerySchema, c.req.query(), 'query');
    return c.json(
      success({ memories: await list(agentId, query, query.channelId ?? query.roomId) }),
    );
  });

  routes.get('/api/memory/:agentId/rooms/:roomId/memories', async (c) => {
    const agentId = agentOf(c);
    const roomId = parseOrThrow(uuidSchema, c.req.param('roomId'), 'roomId');
    const query = parseOrThrow(listQuerySchema, c.req.query(), 'query');
    return c.json(success({ memories: await list(agentId, query, roomId) }));
  });

  routes.patch('/api/memory/:agentId/memories/:memoryId', async (c) => {
    const agentId = agentOf(c);
    const memoryId = parseOrThrow(uuidSchema, c.req.param('memoryId'), 'memoryId');
    const body = await readJsonBody(c, updateBodySchema, 'body');
    const changed = await store.update(
      {
        id: memoryId,
        ...(body.content ? { content: body.content } : {}),
        ...(body.metadata ? { metadata: body.metadata } : {}),
      },
      agentId,
    );
    if (!changed) throw new ParleyError('NOT_FOUND', `Memory ${memoryId} not found`);
    return c.json(success({ id: memoryId, message: 'Memory updated successfully' }));
  });

  routes.delete('/api/memory/:agentId/memories', async (c) => {
    const agentId = agentOf(c);
    let deleted = 0;
    for (const tableName of AGENT_TABLES) deleted += await store.deleteAll({ agentId, tableName });
    await options.summaries.forget(agentId);
    return c.json(success({ deleted, message: 'All agent memories cleared successfully' }));
  });

  routes.delete('/api/memory/:agentId/memories/all/:roomId', async (c) => {
    const agentId = agentOf(c);
    const roomId = parseOrThrow(uuidSchema, c.req.param('roomId'), 'roomId');
    for (const tableName of AGENT_TABLES) await store.deleteAll({ agentId, tableName, roomId });
    await options.summaries.forget(agentId, roomId);
    return c.body(null, 204);
  });

  routes.delete('/api/memory/:agentId/memories/:memoryId', async (c) => {
    const agentId = agentOf(c);
    const memoryId = parseOrThrow(uuidSchema, c.req.param('memoryId'), 'memoryId');
    if (!(await store.delete(memoryId, agentId))) {
      throw new ParleyError('NOT_FOUND', `Memory ${memoryId} not found`);
    }
    return c.json(success({ message: 'Memory deleted successfully' }));
  });

  routes.get('/api/memory/:agentId/rooms', async (c) => {
    const agentId = agentOf(c);
    const { channels } = await options.channels.list({ limit: MAX_ROOMS, agentId });
    return c.json(success({ rooms: channels.map((channel) => toRoom(channel, agentId)) }));
  });

  routes.get('/api/memory/:agentId/rooms/:roomId', async (c) => {
    const agentId = agentOf(c);
    const roomId = parseOrThrow(uuidSchema, c.req.param('roomId'), 'roomId');
    return c.json(success(toRoom(await options.channels.get(roomId), agentId)));
  });

  routes.post('/api/memory/:agentId/rooms', async (c) => {
    const agentId = agentOf(c);
    const body = await readJsonBody(c, createRoomBodySchema, 'body');
    const request = parseOrThrow(
      createChannelRequestSchema,
      {
        name: body.name,
        // elizaOS's room types beyond a DM (GROUP, API, VOICE_...) are group conversations here.
        type: body.type === 'DM' ? 'DM' : 'GROUP',
        agentId,
        ...(body.entityId ? { participants: [body.entityId] } : {}),
        ...(body.metadata ? { metadata: body.metadata } : {}),
        messageServerId: DEFAULT_SERVER_ID,
      },
      'body',
    );
    const channel = await options.channels.create(request);
    return c.json(success({ ...toRoom(channel, agentId), type: body.type ?? 'DM' }), 201);
  });

  return routes;
}
