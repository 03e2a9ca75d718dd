import { apiSuccessSchema, uuidSchema } from '@parley/core';
import { z } from 'zod';
import type { DocumentedOperation } from './built-in-operations';

const base = { tag: 'memory', auth: ['apiKey'] as const };
const agentParams = { agentId: uuidSchema };

/** A memory as the memory routes answer it: elizaOS's `Memory`, with its table. */
const memorySchema = z.object({
  id: z.string(),
  agentId: z.string(),
  entityId: z.string(),
  roomId: z.string(),
  worldId: z.string().optional(),
  content: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()).optional(),
  embedding: z.array(z.number()).optional(),
  unique: z.boolean().optional(),
  createdAt: z.number(),
  tableName: z.string().optional(),
});
const memoriesSchema = apiSuccessSchema(z.object({ memories: z.array(memorySchema) }));
/** elizaOS's `Room`: a Parley channel the agent answers in. */
const roomSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  name: z.string(),
  type: z.string(),
  source: z.string(),
  channelId: z.string(),
  messageServerId: z.string(),
  worldId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});
const tableName = z.string().describe('elizaOS table name: letters, digits, _ or -, at most 64');
const listQuery = z.object({
  tableName: tableName.optional().describe('default `messages` (the channel messages)'),
  roomId: uuidSchema.optional(),
  channelId: uuidSchema.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  before: z.number().int().optional().describe('epoch milliseconds'),
  includeEmbedding: z.enum(['true', 'false']).optional(),
});

/**
 * What agents remember (`http/routes/memory-routes.ts`, per person) and elizaOS's memory API
 * (`http/routes/eliza-memory-routes.ts`, as `@elizaos/api-client`'s `memory.*` calls it). See docs/memory.md.
 */
export const MEMORY_OPERATIONS: readonly DocumentedOperation[] = [
  {
    ...base,
    method: 'get',
    path: '/api/agents/:agentId/memories',
    operationId: 'listAgentMemories',
    summary: 'What an agent remembers (about a person)',
    description:
      "The agent's memories of a table (default `facts`: what it learned about the people it talks with), " +
      'newest first, filtered by `entityId` (the person) and `roomId` (the channel). Embeddings only with ' +
      '`includeEmbedding=true`.',
    pathParams: agentParams,
    query: z.object({
      entityId: z.string().max(256).optional(),
      tableName: tableName.optional(),
      roomId: z.string().max(256).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
      includeEmbedding: z.enum(['true', 'false']).optional(),
    }),
    responses: { 200: { description: 'The memories.', json: memoriesSchema } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/agents/:agentId/memories',
    operationId: 'forgetPerson',
    summary: 'Forget what an agent remembers about a person',
    description:
      'Deletes the memories of `entityId` in a table (default `facts`): they are gone from listings, search ' +
      "and every later prompt; the agent's running summaries of the channels the person wrote in are rebuilt " +
      'from the stored messages.',
    pathParams: agentParams,
    query: z.object({ entityId: z.string().min(1).max(256), tableName: tableName.optional() }),
    responses: {
      200: {
        description: 'How many memories and summaries were removed.',
        json: apiSuccessSchema(z.object({ deleted: z.number(), summariesForgotten: z.number() })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/agents/:agentId/memories/:memoryId',
    operationId: 'deleteAgentMemory',
    summary: 'Delete one memory',
    pathParams: { ...agentParams, memoryId: uuidSchema },
    responses: {
      200: {
        description: 'Deleted.',
        json: apiSuccessSchema(z.object({ id: z.string(), deleted: z.literal(true) })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/memory/:agentId/memories',
    operationId: 'elizaGetAgentMemories',
    summary: "elizaOS: an agent's memories",
    description:
      "elizaOS's `memory.getAgentMemories`. The `messages` table is the channels' stored messages.",
    pathParams: agentParams,
    query: listQuery,
    responses: { 200: { description: 'The memories.', json: memoriesSchema } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/memory/:agentId/memories',
    operationId: 'elizaClearAgentMemories',
    summary: "elizaOS: clear an agent's memories",
    description:
      "elizaOS's `memory.clearAgentMemories`: the memory store's tables of the agent and its running " +
      'summaries (channel messages stay: they are deleted through their channel).',
    pathParams: agentParams,
    responses: {
      200: {
        description: 'How many were deleted.',
        json: apiSuccessSchema(z.object({ deleted: z.number(), message: z.string() })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'patch',
    path: '/api/memory/:agentId/memories/:memoryId',
    operationId: 'elizaUpdateMemory',
    summary: 'elizaOS: change a memory',
    pathParams: { ...agentParams, memoryId: uuidSchema },
    body: z.object({
      content: z.record(z.string(), z.unknown()).optional(),
      metadata: z.record(z.string(), z.unknown()).optional(),
    }),
    responses: {
      200: {
        description: 'Changed.',
        json: apiSuccessSchema(z.object({ id: z.string(), message: z.string() })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/memory/:agentId/memories/:memoryId',
    operationId: 'elizaDeleteMemory',
    summary: 'elizaOS: delete a memory',
    pathParams: { ...agentParams, memoryId: uuidSchema },
    responses: {
      200: { description: 'Deleted.', json: apiSuccessSchema(z.object({ message: z.string() })) },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/memory/:agentId/memories/all/:roomId',
    operationId: 'elizaClearRoomMemories',
    summary: "elizaOS: clear an agent's memories of a room",
    pathParams: { ...agentParams, roomId: uuidSchema },
    responses: { 204: { description: 'Cleared.' } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/memory/:agentId/rooms',
    operationId: 'elizaListAgentRooms',
    summary: "elizaOS: the agent's rooms (its channels)",
    pathParams: agentParams,
    responses: {
      200: {
        description: 'The rooms.',
        json: apiSuccessSchema(z.object({ rooms: z.array(roomSchema) })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'post',
    path: '/api/memory/:agentId/rooms',
    operationId: 'elizaCreateRoom',
    summary: 'elizaOS: create a room (a channel the agent answers in)',
    pathParams: agentParams,
    body: z.object({
      name: z.string().min(1).max(256),
      type: z.string().optional(),
      metadata: z.record(z.string(), z.unknown()).optional(),
      entityId: z.string().max(256).optional(),
    }),
    responses: { 201: { description: 'The room.', json: apiSuccessSchema(roomSchema) } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/memory/:agentId/rooms/:roomId',
    operationId: 'elizaGetRoom',
    summary: 'elizaOS: a room',
    pathParams: { ...agentParams, roomId: uuidSchema },
    responses: { 200: { description: 'The room.', json: apiSuccessSchema(roomSchema) } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/memory/:agentId/rooms/:roomId/memories',
    operationId: 'elizaGetRoomMemories',
    summary: "elizaOS: a room's memories",
    description:
      "elizaOS's `memory.getRoomMemories`: by default the channel's messages, newest first.",
    pathParams: { ...agentParams, roomId: uuidSchema },
    query: listQuery.omit({ roomId: true, channelId: true }),
    responses: { 200: { description: 'The memories.', json: memoriesSchema } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
];
