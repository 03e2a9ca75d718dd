import { apiSuccessSchema, channelSchema, uuidSchema } from '@parley/core';
import { z } from 'zod';
import { MESSAGE_SERVER_CHANNELS_LIMIT } from '../../http/routes/message-server-routes';
import { createSessionBodySchema, sessionMessageBodySchema } from '../../sessions/session-schemas';
import { REPLY_ERRORS, type DocumentedOperation } from './built-in-operations';

const agentId = { agentId: uuidSchema };
const sessionId = { sessionId: uuidSchema };
const messageServerId = { messageServerId: uuidSchema };
const sessions = { tag: 'sessions', auth: ['apiKey'] as const };
const servers = { tag: 'message servers', auth: ['apiKey'] as const };
const sessionInfoSchema = z.object({
  sessionId: z.string(),
  agentId: z.string(),
  userId: z.string(),
  channelId: z.string(),
  createdAt: z.string(),
  lastActivity: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});
const userMessageSchema = z.object({
  id: z.string(),
  content: z.string(),
  authorId: z.string(),
  createdAt: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});
const sessionMessageResultSchema = z.object({
  success: z.literal(true),
  userMessage: userMessageSchema,
  agentResponse: z
    .object({ text: z.string(), thought: z.string().optional(), actions: z.array(z.string()) })
    .optional()
    .describe('With `transport: "http"` only.'),
  replyId: z.string(),
  awaitingApproval: z.array(z.unknown()).optional(),
});
const simplifiedMessageSchema = z.object({
  id: z.string(),
  content: z.string(),
  authorId: z.string(),
  isAgent: z.boolean(),
  createdAt: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});
const instant = z
  .string()
  .optional()
  .describe('Epoch milliseconds (as elizaOS sends it) or an ISO 8601 date-time.');
const sessionMessagesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  before: instant,
  after: instant,
});
const messageServerSchema = z.object({
  id: z.string(),
  name: z.string(),
  sourceType: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** elizaOS's message servers and sessions (`http/routes/message-server-routes.ts`, `sessions/`). */
export const SESSION_OPERATIONS: readonly DocumentedOperation[] = [
  {
    ...servers,
    method: 'get',
    path: '/api/messaging/message-servers',
    operationId: 'listMessageServers',
    summary: 'The message servers: the default all-zero one',
    responses: {
      200: {
        description: 'The one message server.',
        json: apiSuccessSchema(z.object({ messageServers: z.array(messageServerSchema) })),
      },
    },
    errors: [],
  },
  {
    ...servers,
    method: 'get',
    path: '/api/messaging/message-server/current',
    operationId: 'getCurrentMessageServer',
    summary: 'The message server of this server',
    responses: {
      200: {
        description: 'Its id.',
        json: apiSuccessSchema(z.object({ messageServerId: z.string() })),
      },
    },
    errors: [],
  },
  {
    ...servers,
    method: 'get',
    path: '/api/messaging/message-servers/:messageServerId/agents',
    operationId: 'getMessageServerAgents',
    summary: "A message server's agents: all of them",
    pathParams: messageServerId,
    responses: {
      200: {
        description: 'Agent ids.',
        json: apiSuccessSchema(
          z.object({ messageServerId: z.string(), agents: z.array(z.string()) }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND'],
  },
  {
    ...servers,
    method: 'get',
    path: '/api/messaging/agents/:agentId/message-servers',
    operationId: 'getAgentMessageServers',
    summary: "An agent's message servers: the default one",
    pathParams: agentId,
    responses: {
      200: {
        description: 'Message server ids.',
        json: apiSuccessSchema(
          z.object({ agentId: z.string(), messageServers: z.array(z.string()) }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...servers,
    method: 'get',
    path: '/api/messaging/message-servers/:messageServerId/channels',
    operationId: 'getMessageServerChannels',
    summary: "A message server's channels",
    description: `Newest activity first, at most ${MESSAGE_SERVER_CHANNELS_LIMIT} (page with \`GET /api/messaging/channels\`).`,
    pathParams: messageServerId,
    responses: {
      200: {
        description: 'Channels.',
        json: apiSuccessSchema(z.object({ channels: z.array(channelSchema) })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...sessions,
    method: 'get',
    path: '/api/messaging/sessions/health',
    operationId: 'sessionsHealth',
    summary: 'Whether sessions are served, and how many there are',
    responses: {
      200: {
        description: 'Healthy.',
        json: apiSuccessSchema(
          z.object({
            status: z.literal('healthy'),
            activeSessions: z.number(),
            timestamp: z.string(),
          }),
        ),
      },
    },
    errors: ['UNAVAILABLE'],
  },
  {
    ...sessions,
    method: 'get',
    path: '/api/messaging/sessions',
    operationId: 'listSessions',
    summary: 'Sessions, most recently active first (at most 100), and how many there are',
    responses: {
      200: {
        description: 'Sessions.',
        json: apiSuccessSchema(
          z.object({ sessions: z.array(sessionInfoSchema), total: z.number() }),
        ),
      },
    },
    errors: ['UNAVAILABLE'],
  },
  {
    ...sessions,
    method: 'post',
    path: '/api/messaging/sessions',
    operationId: 'createSession',
    summary: 'Start a session: a user and an agent in a channel of their own',
    body: createSessionBodySchema,
    responses: { 201: { description: 'The session.', json: apiSuccessSchema(sessionInfoSchema) } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...sessions,
    method: 'get',
    path: '/api/messaging/sessions/:sessionId',
    operationId: 'getSession',
    summary: 'A session',
    pathParams: sessionId,
    responses: { 200: { description: 'The session.', json: apiSuccessSchema(sessionInfoSchema) } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...sessions,
    method: 'delete',
    path: '/api/messaging/sessions/:sessionId',
    operationId: 'deleteSession',
    summary: 'End a session (its channel and messages stay)',
    pathParams: sessionId,
    responses: {
      200: {
        description: 'Deleted.',
        json: apiSuccessSchema(z.object({ sessionId: z.string(), deleted: z.literal(true) })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...sessions,
    method: 'post',
    path: '/api/messaging/sessions/:sessionId/messages',
    operationId: 'sendSessionMessage',
    summary: "Send a message in a session; the agent's reply as elizaOS answers it",
    description:
      "`transport`: `websocket` (default) answers at once and the reply reaches the channel's room; `http` " +
      'waits for the reply (`agentResponse`; 504 after the sync timeout); `sse` streams it as the channel ' +
      '`stream` mode does. A stopped agent is 409.',
    pathParams: sessionId,
    body: sessionMessageBodySchema,
    responses: {
      201: {
        description: 'The message (and with `http`, the reply).',
        json: apiSuccessSchema(sessionMessageResultSchema),
      },
      200: { description: 'With `transport: "sse"`: server-sent events.', eventStream: true },
    },
    errors: REPLY_ERRORS,
  },
  {
    ...sessions,
    method: 'get',
    path: '/api/messaging/sessions/:sessionId/messages',
    operationId: 'getSessionMessages',
    summary: "A session's messages, newest first",
    pathParams: sessionId,
    query: sessionMessagesQuery,
    responses: {
      200: {
        description: 'Messages.',
        json: apiSuccessSchema(
          z.object({ messages: z.array(simplifiedMessageSchema), hasMore: z.boolean() }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
];
