import {
  agentMessageSchema,
  apiSuccessSchema,
  cancelledReplySchema,
  approvalDecidedSchema,
  approvalDecisionSchema,
  channelMessageRequestSchema,
  editMessageRequestSchema,
  healthSchema,
  listedMessageSchema,
  storedMessageSchema,
  syncModeResponseSchema,
  teeAgentsResponseSchema,
  teeStatusResponseSchema,
  uuidSchema,
  webhookDeliveriesQuerySchema,
  webhookSubscriptionRequestSchema,
  webhookSubscriptionSchema,
  websocketModeResponseSchema,
  type ErrorCode,
} from '@parley/core';
import { z } from 'zod';
import { isBuiltInPath } from '../../http/create-app';
import { HEALTH_PATH, isOpenPath } from '../../http/routes/server-routes';
import { MAX_NONCE_LENGTH } from '../../tee/tee-service';
import { DOCS_PATH } from '../docs-page';
import { ASYNCAPI_PATH, OPENAPI_PATH } from '../document-paths';

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

/** The ways a caller can present the server token (`components.securitySchemes`). */
export type SecuritySchemeName = 'apiKey' | 'bearer';

/** An endpoint as the documents describe it: the zod schemas its handler validates with, and its answers. */
export interface DocumentedOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The path in hono's syntax (`:param`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** How the token is accepted when the server has one; empty: open without a token. */
  auth: readonly SecuritySchemeName[];
  pathParams?: Record<string, z.ZodType>;
  query?: z.ZodObject;
  /** Request headers the endpoint reads, by name. */
  headers?: Record<string, z.ZodType>;
  body?: z.ZodType;
  /** A `multipart/form-data` body of one file (its description) instead of JSON. */
  multipartFile?: string;
  /** The answers of the endpoint itself (the guards' failures come from {@link guardErrorsOf}). */
  responses: Record<string, OperationResponse>;
  /** The failures the handler itself gives, besides the guards'. */
  errors: readonly ErrorCode[];
}

/**
 * The `security` of an operation: any one of the schemes, or none at all (the server has no token); `[]` when
 * the endpoint is open.
 */
export function securityOf(schemes: readonly SecuritySchemeName[]): Record<string, string[]>[] {
  return schemes.length === 0 ? [] : [...schemes.map((scheme) => ({ [scheme]: [] })), {}];
}

/** Methods whose requests must carry JSON on built-in paths (`http/json-content-type.ts`). */
const JSON_BODY_METHODS: ReadonlySet<string> = new Set(['post', 'put', 'patch']);

/**
 * The failures the app's guards (`http/create-app.ts`, in their order) can give a request to `path` before its
 * handler runs: the Host allow-list on every path and the origin guard on state-changing methods (403), the
 * per-client rate limits on `/api/messaging/*` and on every path outside the built-in prefixes (429), the body
 * limit on built-in paths whatever the method (413), the token on built-in paths but health and readiness
 * (401), and JSON content types on built-in POST, PUT and PATCH (415). Paths outside the built-in prefixes
 * (`/metrics`, plugin routes) check their token themselves.
 */
export function guardErrorsOf(operation: {
  method: string;
  path: string;
  auth: readonly SecuritySchemeName[];
}): ErrorCode[] {
  const method = operation.method.toLowerCase();
  const errors: ErrorCode[] = ['FORBIDDEN'];
  // Every path has a rate budget but liveness, which touches nothing (see http/create-app.ts).
  if (operation.path !== HEALTH_PATH) errors.push('RATE_LIMITED');
  if (isBuiltInPath(operation.path)) {
    errors.push('PAYLOAD_TOO_LARGE');
    if (operation.auth.length > 0 && !isOpenPath(operation.path)) errors.push('UNAUTHORIZED');
    if (JSON_BODY_METHODS.has(method)) errors.push('UNSUPPORTED_MEDIA_TYPE');
  }
  errors.push('INTERNAL');
  return errors;
}

/**
 * What a message that asks an agent for a reply may fail with (on the channel API and on sessions alike): the
 * reply's own failures (the model's, a timeout, a cancel, a busy channel) besides those of the message.
 */
export const REPLY_ERRORS: readonly ErrorCode[] = [
  'BAD_REQUEST',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMITED',
  'MODEL_ERROR',
  'UNAVAILABLE',
  'TIMEOUT',
  'CHANNEL_BUSY',
  'CANCELLED',
];

/** The request headers of idempotent posts. */
const IDEMPOTENCY_HEADER = {
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .describe(
      'Makes a retry safe: the same key on the same endpoint with the same request answers what the first ' +
        'answered and stores nothing twice (in any process, after a restart); with another request, 409.',
    ),
};

/** `Last-Event-ID` as a stream's `id:` lines carry it. */
const lastEventIdHeader = (what: string) => ({
  'Last-Event-ID': z
    .string()
    .describe(
      `The \`id\` of the last event received: \`<replyId>:<index>:<offset>\`, with \`:<tools>\` (tool events ` +
        `received) once a \`tool_call\` or \`tool_result\` was (\`<replyId>:-1:0\`: from the start). ${what}`,
    ),
});

const channelId = { channelId: uuidSchema };

/** `GET /api/server/ready` data: each readiness check (its schema lives with the route, not in core). */
const readinessSchema = z.object({
  status: z.literal('ready'),
  checks: z
    .array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string().optional() }))
    .optional(),
});

const NOT_ENVELOPED =
  'This answer is not in the `{ success, data }` envelope: its fields are at the top level (the interface ' +
  "reference's shape); failures still use the error envelope.";

/**
 * Every built-in endpoint. The route files validate with the same core schemas, and tests check this list
 * against the routes the server really mounts and against the statuses they really answer, so the document
 * cannot drift from the server.
 */
export const BUILT_IN_OPERATIONS: readonly DocumentedOperation[] = [
  {
    method: 'get',
    path: '/api/server/health',
    operationId: 'getHealth',
    summary: 'Liveness check',
    description: 'Open without a token, for load-balancer probes.',
    tag: 'server',
    auth: [],
    responses: { 200: { description: 'The server is up.', json: apiSuccessSchema(healthSchema) } },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/server/ready',
    operationId: 'getReadiness',
    summary: 'Readiness check',
    description:
      'Open without a token. 200 when everything the server needs (the database) is up and it is not ' +
      'stopping, else 503. When the server has a token, only a request that sends it (`x-api-key`) gets the ' +
      'checks (`checks`, `error.details.checks`, redacted); without it the answer says only ready or not.',
    tag: 'server',
    auth: [],
    responses: { 200: { description: 'Ready.', json: apiSuccessSchema(readinessSchema) } },
    errors: ['UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/server/ping',
    operationId: 'pingServer',
    summary: 'Ping (elizaOS)',
    description: `elizaOS's \`server.ping\`. ${NOT_ENVELOPED}`,
    tag: 'server',
    auth: ['apiKey'],
    responses: {
      200: {
        description: 'Pong.',
        json: z.object({ pong: z.literal(true), timestamp: z.number().int() }),
      },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/server/hello',
    operationId: 'helloServer',
    summary: 'Hello (elizaOS)',
    description: `elizaOS's \`server.hello\`. ${NOT_ENVELOPED}`,
    tag: 'server',
    auth: ['apiKey'],
    responses: { 200: { description: 'A greeting.', json: z.object({ message: z.string() }) } },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/server/status',
    operationId: 'getServerStatus',
    summary: 'Server status (elizaOS)',
    description:
      "elizaOS's `server.getStatus`: agent counts (active answers, inactive is stopped), the process's heap " +
      'use, uptime in seconds and the server version.',
    tag: 'server',
    auth: ['apiKey'],
    responses: {
      200: {
        description: 'The status.',
        json: apiSuccessSchema(
          z.object({
            agents: z.object({
              total: z.number().int(),
              active: z.number().int(),
              inactive: z.number().int(),
            }),
            memory: z.object({ used: z.number(), total: z.number(), percentage: z.number() }),
            uptime: z.number(),
            version: z.string(),
          }),
        ),
      },
    },
    errors: [],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description:
      'The Prometheus text exposition (not JSON); needs the token when the server has one, as `x-api-key` or ' +
      '`Authorization: Bearer` (what Prometheus sends). It has the rate budget of the built-in reads.',
    tag: 'server',
    auth: ['apiKey', 'bearer'],
    responses: {
      200: { description: 'Metrics in the Prometheus text format.', text: 'text/plain' },
    },
    errors: ['UNAUTHORIZED'],
  },
  {
    method: 'post',
    path: '/api/messaging/submit',
    operationId: 'submitMessage',
    summary: 'Store an agent message and broadcast it',
    description:
      "Stores the message and broadcasts it to the channel's room as `messageBroadcast`. No agent is asked " +
      'to reply. With `Idempotency-Key`, a retry answers the stored message again.',
    tag: 'messaging',
    auth: ['apiKey'],
    headers: IDEMPOTENCY_HEADER,
    body: agentMessageSchema,
    responses: {
      201: { description: 'The stored message.', json: apiSuccessSchema(storedMessageSchema) },
    },
    errors: ['BAD_REQUEST', 'CONFLICT', 'UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/messaging/channels/:channelId/messages',
    operationId: 'postChannelMessage',
    summary: 'Send a message to an agent',
    description:
      'The channel is created on first use. `mode` decides how the caller gets the reply: `websocket` answers ' +
      '202 at once and the reply follows on the socket; `stream` answers server-sent events ' +
      '(`user_message`, `chunk` and `tool_call`/`tool_result`…, then `done` or `error`); `sync` waits for the whole reply (504 after the ' +
      'sync timeout; the reply goes on and reaches the room). The `websocket` and `sync` answers are not in ' +
      'the `{ success, data }` envelope: `success`, `userMessage`, `replyId` (and `agentResponse`) are at the ' +
      'top level. A request that repeats the post with `Last-Event-ID` (as an EventSource reconnecting does) ' +
      'continues that reply instead of posting again: events after it, or 204 when the stream had ended. ' +
      '`ifBusy` decides what the message does while a reply to the channel runs: `enqueue` (default), ' +
      '`reject` (409 `CHANNEL_BUSY`), `interrupt` (the running reply ends `CANCELLED`; this one sees both). ' +
      "A reply that calls an action needing a person's approval pauses: `stream` sends `approval_request` and " +
      'stays open, following the reply after the decision; `sync` answers 202 with `awaitingApproval`.',
    tag: 'messaging',
    auth: ['apiKey'],
    pathParams: channelId,
    headers: {
      ...IDEMPOTENCY_HEADER,
      ...lastEventIdHeader('When present, the body is not read and nothing is posted.'),
    },
    body: channelMessageRequestSchema,
    responses: {
      200: {
        description:
          '`sync`: the full reply (JSON, outside the envelope). `stream`, or a repeat with `Last-Event-ID`: ' +
          'server-sent events.',
        json: syncModeResponseSchema,
        eventStream: true,
      },
      202: {
        description:
          '`websocket`: queued; the reply arrives on the socket (JSON, outside the envelope). `sync`: the ' +
          'reply paused for approvals: what it has so far and `awaitingApproval`, the calls it waits for; it ' +
          'goes on once they are decided (`POST /api/messaging/replies/{replyId}/approvals`).',
        json: z.union([websocketModeResponseSchema, syncModeResponseSchema]),
      },
      201: {
        description:
          "elizaOS's body (`{ content, metadata? }`, no `text`): the message is stored and the agent replies " +
          'on the socket, as mode `websocket`; the stored message, in the envelope, as elizaOS answers.',
        json: apiSuccessSchema(listedMessageSchema),
      },
      204: { description: 'A repeat with `Last-Event-ID`: the stream already ended there.' },
    },
    errors: REPLY_ERRORS,
  },
  {
    method: 'post',
    path: '/api/messaging/channels/:channelId/messages/:messageId/regenerate',
    operationId: 'regenerateReply',
    summary: "Answer a user's message again (Regenerate)",
    description:
      "No body. The channel's agent answers the stored user message again: a new reply, streamed to the " +
      "channel's room like any other (socket `messageStreamChunk`, `messageBroadcast`), stored with " +
      '`in_reply_to` the message. Earlier answers stay in the history; clients show the answers to one ' +
      'message as its alternatives, the newest chosen, and the model no longer sees the answers it replaces.',
    tag: 'messaging',
    auth: ['apiKey'],
    pathParams: { channelId: uuidSchema, messageId: uuidSchema },
    responses: {
      202: {
        description: 'The new answer is being produced; follow it on the socket or its events.',
        json: apiSuccessSchema(
          z.object({
            messageId: uuidSchema,
            replyId: uuidSchema,
            status: z.literal('answering'),
          }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/messaging/channels/:channelId/messages/:messageId/edit',
    operationId: 'editMessage',
    summary: 'Edit a sent message and have it answered again',
    description:
      "Only the message's author (or an admin) may edit it. The stored message takes the new text (the " +
      'texts it had are kept in `metadata.edits`, `metadata.editedAt` says when); the room gets it again as ' +
      '`messageBroadcast` with the same id and the new text. The agent answers the new text as Regenerate ' +
      'does: a new reply `in_reply_to` the message, marked `metadata.regenerated`, streamed to the room; the ' +
      'earlier answers stay in the history as its alternatives and are no longer shown to the model.',
    tag: 'messaging',
    auth: ['apiKey'],
    pathParams: { channelId: uuidSchema, messageId: uuidSchema },
    body: editMessageRequestSchema,
    responses: {
      202: {
        description: 'The message is edited and its new answer is being produced.',
        json: apiSuccessSchema(
          z.object({
            messageId: uuidSchema,
            text: z.string(),
            replyId: uuidSchema,
            status: z.literal('answering'),
          }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/messaging/replies/:replyId/cancel',
    operationId: 'cancelReply',
    summary: 'Stop a running reply',
    description:
      "No body. Aborts the reply's model request, whichever process of the cluster runs it; every stream of " +
      'the reply ends with `error` code `CANCELLED` (SSE `error` event, socket `messageError`, `sync` 409), ' +
      "nothing of it is stored, and its place in the channel's queue is freed. A reply already being stored " +
      'can no longer be cancelled: 409, and it stands.',
    tag: 'messaging',
    auth: ['apiKey'],
    pathParams: { replyId: uuidSchema },
    responses: {
      202: {
        description: 'The reply was running and is cancelled.',
        json: apiSuccessSchema(cancelledReplySchema),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/messaging/replies/:replyId/approvals',
    operationId: 'decideApproval',
    summary: 'Approve or deny an action call a reply waits for',
    description:
      'Decides one call of a reply paused for approval (its `approval_request`). The decision is taken once, ' +
      'whichever process of the cluster receives it; once every request of the step is decided the reply goes ' +
      'on under the same id, on any process, after a restart too (follow it with ' +
      "`GET /api/messaging/replies/{replyId}/events`). A denial reaches the model as the call's result, with " +
      '`reason`. A request not decided within `APPROVAL_TIMEOUT_MS` expires: the call does not run.',
    tag: 'messaging',
    auth: ['apiKey'],
    pathParams: { replyId: uuidSchema },
    body: approvalDecisionSchema,
    responses: {
      202: {
        description: 'The decision is taken.',
        json: apiSuccessSchema(approvalDecidedSchema),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/messaging/replies/:replyId/events',
    operationId: 'resumeReplyEvents',
    summary: "Resume a reply's event stream",
    description:
      'The events of a reply after `Last-Event-ID` (header, or the `lastEventId` query for clients that ' +
      'cannot set headers): live while the reply runs, else from storage; a reply paused for approval is ' +
      'followed to its end wherever it goes on. 204 when the stream was already ' +
      'seen to its end. `replyId` comes from the `websocket` mode answer or the `user_message` event.',
    tag: 'messaging',
    auth: ['apiKey'],
    pathParams: { replyId: uuidSchema },
    query: z.object({ lastEventId: z.string().optional() }),
    headers: lastEventIdHeader('Without it, the stream starts at the beginning.'),
    responses: {
      200: { description: 'Server-sent events, as in the `stream` mode.', eventStream: true },
      204: { description: 'The stream already ended at `Last-Event-ID`.' },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/tee/status',
    operationId: 'getTeeStatus',
    summary: 'TEE status',
    description: NOT_ENVELOPED,
    tag: 'tee',
    auth: ['apiKey'],
    responses: {
      200: { description: 'The TEE status (outside the envelope).', json: teeStatusResponseSchema },
    },
    errors: ['UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/tee/agents',
    operationId: 'listTeeAgents',
    summary: 'Agents registered in the TEE, with attestations',
    description:
      "Each agent's attestation binds its record; the list's attestation binds the whole list and `nonce`. " +
      NOT_ENVELOPED,
    tag: 'tee',
    auth: ['apiKey'],
    query: z.object({ nonce: z.string().max(MAX_NONCE_LENGTH).optional() }),
    responses: {
      200: {
        description: 'The attested agents (outside the envelope).',
        json: teeAgentsResponseSchema,
      },
    },
    errors: ['BAD_REQUEST', 'UNAVAILABLE'],
  },
  {
    method: 'get',
    path: OPENAPI_PATH,
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    description:
      'OpenAPI 3.1, with the loaded plugin routes. Open without a token: it describes no data.',
    tag: 'documents',
    auth: [],
    responses: {
      200: { description: 'The OpenAPI document.', json: z.record(z.string(), z.unknown()) },
    },
    errors: [],
  },
  {
    method: 'get',
    path: ASYNCAPI_PATH,
    operationId: 'getAsyncApiDocument',
    summary: 'The AsyncAPI document of the event socket',
    description: 'AsyncAPI 3. Open without a token.',
    tag: 'documents',
    auth: [],
    responses: {
      200: { description: 'The AsyncAPI document.', json: z.record(z.string(), z.unknown()) },
    },
    errors: [],
  },
  {
    method: 'get',
    path: DOCS_PATH,
    operationId: 'getInteractiveDocs',
    summary: 'Interactive docs (Swagger UI) of this document',
    description: 'An HTML page; its script and style are served beneath it, from this server only.',
    tag: 'documents',
    auth: [],
    responses: { 200: { description: 'The page.', text: 'text/html' } },
    errors: [],
  },
  {
    method: 'post',
    path: '/api/webhooks',
    operationId: 'createWebhookSubscription',
    summary: 'Subscribe a URL to events',
    description:
      'The answer is the only one that carries the signing `secret`. The URL must resolve to a public ' +
      'address unless the server allows private targets; 409 when the server keeps its most subscriptions.',
    tag: 'webhooks',
    auth: ['apiKey'],
    body: webhookSubscriptionRequestSchema,
    responses: {
      201: {
        description: 'The subscription, with its secret.',
        json: apiSuccessSchema(webhookSubscriptionSchema),
      },
    },
    errors: ['BAD_REQUEST', 'CONFLICT', 'UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/webhooks',
    operationId: 'listWebhookSubscriptions',
    summary: 'The webhook subscriptions',
    tag: 'webhooks',
    auth: ['apiKey'],
    responses: {
      200: {
        description: 'Every subscription, without secrets.',
        json: apiSuccessSchema(z.array(webhookSubscriptionSchema)),
      },
    },
    errors: ['UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/webhooks/:id',
    operationId: 'getWebhookSubscription',
    summary: 'One webhook subscription',
    tag: 'webhooks',
    auth: ['apiKey'],
    pathParams: { id: uuidSchema },
    responses: {
      200: { description: 'The subscription.', json: apiSuccessSchema(webhookSubscriptionSchema) },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    method: 'delete',
    path: '/api/webhooks/:id',
    operationId: 'deleteWebhookSubscription',
    summary: 'Delete a webhook subscription',
    tag: 'webhooks',
    auth: ['apiKey'],
    pathParams: { id: uuidSchema },
    responses: {
      200: {
        description: 'Deleted.',
        json: apiSuccessSchema(z.object({ id: z.string(), deleted: z.literal(true) })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    method: 'get',
    path: '/api/webhooks/:id/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "A subscription's latest deliveries, with their attempts",
    tag: 'webhooks',
    auth: ['apiKey'],
    pathParams: { id: uuidSchema },
    query: webhookDeliveriesQuerySchema,
    responses: {
      200: {
        description: 'Deliveries, newest first.',
        json: apiSuccessSchema(z.array(z.looseObject({ id: z.string(), status: z.string() }))),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/webhooks/:id/deliveries/:deliveryId/retry',
    operationId: 'retryWebhookDelivery',
    summary: 'Deliver a failed delivery again',
    description: 'Takes no body. 409 when the delivery was delivered already.',
    tag: 'webhooks',
    auth: ['apiKey'],
    pathParams: { id: uuidSchema, deliveryId: uuidSchema },
    responses: {
      202: {
        description: 'Queued again.',
        json: apiSuccessSchema(z.object({ id: z.string(), status: z.literal('pending') })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'UNAVAILABLE'],
  },
];
