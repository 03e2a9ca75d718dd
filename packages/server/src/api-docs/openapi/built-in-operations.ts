import {
  agentMessageSchema,
  agentSummarySchema,
  apiSuccessSchema,
  channelHistoryQuerySchema,
  channelMessageRequestSchema,
  healthSchema,
  storedMessageSchema,
  syncModeResponseSchema,
  teeAgentsResponseSchema,
  teeStatusResponseSchema,
  uuidSchema,
  websocketModeResponseSchema,
  type ErrorCode,
} from '@parley/core';
import { z } from 'zod';
import { MAX_NONCE_LENGTH } from '../../tee/tee-service';

/** One response of an operation: a JSON body, server-sent events, or none. */
export interface OperationResponse {
  description: string;
  /** JSON body schema. */
  json?: z.ZodType;
  /** A `text/event-stream` body of the channel `stream` mode's events. */
  eventStream?: boolean;
  /** A plain-text body of this media type. */
  text?: string;
}

/** An endpoint as the documents describe it: the zod schemas its handler validates with, and its answers. */
export interface DocumentedOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The path in hono's syntax (`:param`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Whether `x-api-key` is required when the server has a token. */
  auth: boolean;
  pathParams?: Record<string, z.ZodType>;
  query?: z.ZodObject;
  /** Request headers the endpoint reads, by name. */
  headers?: Record<string, z.ZodType>;
  body?: z.ZodType;
  responses: Record<string, OperationResponse>;
  errors: readonly ErrorCode[];
}

const channelId = { channelId: uuidSchema };

/** `GET /api/server/ready` data: each readiness check (its schema lives with the route, not in core). */
const readinessSchema = z.object({
  status: z.literal('ready'),
  checks: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string().optional() })),
});
const bodyErrors = ['BAD_REQUEST', 'UNAUTHORIZED', 'PAYLOAD_TOO_LARGE', 'INTERNAL'] as const;

/**
 * Every built-in endpoint. The route files validate with the same core schemas, and a test checks this list
 * against the routes the server really mounts, so the document cannot drift from the server.
 */
export const BUILT_IN_OPERATIONS: readonly DocumentedOperation[] = [
  {
    method: 'get',
    path: '/api/server/health',
    operationId: 'getHealth',
    summary: 'Liveness check',
    description: 'Open without a token, for load-balancer probes.',
    tag: 'server',
    auth: false,
    responses: { 200: { description: 'The server is up.', json: apiSuccessSchema(healthSchema) } },
    errors: ['INTERNAL'],
  },
  {
    method: 'get',
    path: '/api/server/ready',
    operationId: 'getReadiness',
    summary: 'Readiness check',
    description:
      'Open without a token. 200 when everything the server needs (the database) is up, else 503 with ' +
      '`error.details.checks`.',
    tag: 'server',
    auth: false,
    responses: { 200: { description: 'Ready.', json: apiSuccessSchema(readinessSchema) } },
    errors: ['UNAVAILABLE', 'INTERNAL'],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description: 'The Prometheus text exposition; needs `x-api-key` when the server has a token.',
    tag: 'server',
    auth: true,
    responses: {
      200: { description: 'Metrics in the Prometheus text format.', text: 'text/plain' },
    },
    errors: ['UNAUTHORIZED', 'INTERNAL'],
  },
  {
    method: 'get',
    path: '/api/agents',
    operationId: 'listAgents',
    summary: 'List the agents',
    description: 'The first agent is the default agent.',
    tag: 'agents',
    auth: true,
    responses: {
      200: { description: 'The agents.', json: apiSuccessSchema(z.array(agentSummarySchema)) },
    },
    errors: ['UNAUTHORIZED', 'INTERNAL'],
  },
  {
    method: 'post',
    path: '/api/messaging/submit',
    operationId: 'submitMessage',
    summary: 'Store an agent message and broadcast it',
    description:
      "Stores the message and broadcasts it to the channel's room as `messageBroadcast`. No agent is asked to reply.",
    tag: 'messaging',
    auth: true,
    body: agentMessageSchema,
    responses: {
      201: { description: 'The stored message.', json: apiSuccessSchema(storedMessageSchema) },
    },
    errors: bodyErrors,
  },
  {
    method: 'get',
    path: '/api/messaging/channels/:channelId/messages',
    operationId: 'listChannelMessages',
    summary: "A channel's history, newest first",
    description: 'Page back with `before` set to the `created_at` of the oldest message received.',
    tag: 'messaging',
    auth: true,
    pathParams: channelId,
    query: channelHistoryQuerySchema,
    responses: {
      200: {
        description: 'Messages, newest first.',
        json: apiSuccessSchema(z.array(storedMessageSchema)),
      },
    },
    errors: ['BAD_REQUEST', 'UNAUTHORIZED', 'INTERNAL'],
  },
  {
    method: 'post',
    path: '/api/messaging/channels/:channelId/messages',
    operationId: 'postChannelMessage',
    summary: 'Send a message to an agent',
    description:
      'The channel is created on first use. `mode` decides how the caller gets the reply: `websocket` answers ' +
      '202 at once and the reply follows on the socket; `stream` answers server-sent events ' +
      '(`user_message`, `chunk`…, then `done` or `error`); `sync` waits for the whole reply.',
    tag: 'messaging',
    auth: true,
    pathParams: channelId,
    body: channelMessageRequestSchema,
    responses: {
      200: {
        description: '`sync`: the full reply (JSON). `stream`: server-sent events.',
        json: syncModeResponseSchema,
        eventStream: true,
      },
      202: {
        description: '`websocket`: queued; the reply arrives on the socket.',
        json: websocketModeResponseSchema,
      },
    },
    errors: [...bodyErrors, 'NOT_FOUND', 'MODEL_ERROR', 'TIMEOUT'],
  },
  {
    method: 'get',
    path: '/api/messaging/replies/:replyId/events',
    operationId: 'resumeReplyEvents',
    summary: "Resume a reply's event stream",
    description:
      'The events of a reply after `Last-Event-ID` (header, or the `lastEventId` query for clients that ' +
      'cannot set headers): live while the reply runs, else from storage. 204 when the stream was already ' +
      'seen to its end. `replyId` comes from the `websocket` mode answer or the `user_message` event.',
    tag: 'messaging',
    auth: true,
    pathParams: { replyId: uuidSchema },
    query: z.object({ lastEventId: z.string().optional() }),
    headers: { 'Last-Event-ID': z.string() },
    responses: {
      200: { description: 'Server-sent events, as in the `stream` mode.', eventStream: true },
      204: { description: 'The stream already ended at `Last-Event-ID`.' },
    },
    errors: ['BAD_REQUEST', 'UNAUTHORIZED', 'NOT_FOUND', 'INTERNAL'],
  },
  {
    method: 'get',
    path: '/api/tee/status',
    operationId: 'getTeeStatus',
    summary: 'TEE status',
    tag: 'tee',
    auth: true,
    responses: { 200: { description: 'The TEE status.', json: teeStatusResponseSchema } },
    errors: ['UNAUTHORIZED', 'INTERNAL', 'UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/tee/agents',
    operationId: 'listTeeAgents',
    summary: 'Agents registered in the TEE, with attestations',
    description:
      "Each agent's attestation binds its record; the list's attestation binds the whole list and `nonce`.",
    tag: 'tee',
    auth: true,
    query: z.object({ nonce: z.string().max(MAX_NONCE_LENGTH).optional() }),
    responses: { 200: { description: 'The attested agents.', json: teeAgentsResponseSchema } },
    errors: ['BAD_REQUEST', 'UNAUTHORIZED', 'INTERNAL', 'UNAVAILABLE'],
  },
];
