import { z } from 'zod';
import {
  toolCallIdSchema,
  toolCallRecordsSchema,
  toolErrorSchema,
  toolJsonSchema,
  toolNameSchema,
} from './tool-calls';
import { approvalRequestSchema } from './approvals';
import { emptyReplyFields } from './channel-message';

/** `user_message` stream event: the stored user message, and the id of the reply that answers it. */
export const userMessageEventSchema = z.object({
  id: z.string(),
  text: z.string(),
  replyId: z.string().optional(),
});

/** `chunk` stream event: one piece of the agent's reply, `index` counting from 0. */
export const chunkEventSchema = z.object({
  messageId: z.string(),
  chunk: z.string(),
  index: z.number().int().nonnegative(),
});

/**
 * `tool_call` stream event: the agent called a tool (one of its actions), with these arguments; its
 * `tool_result` follows.
 */
export const toolCallEventSchema = z.object({
  toolCallId: toolCallIdSchema,
  toolName: toolNameSchema,
  input: toolJsonSchema,
});

/**
 * `tool_result` stream event: the outcome of the call of the same `toolCallId`: its `output`, or `error` when it
 * failed (the model is told either way, and the reply goes on).
 */
export const toolResultEventSchema = z.union([
  z.object({ toolCallId: toolCallIdSchema, toolName: toolNameSchema, error: toolErrorSchema }),
  z.object({ toolCallId: toolCallIdSchema, toolName: toolNameSchema, output: toolJsonSchema }),
]);

/**
 * `approval_request` stream event: the agent called an action that needs a person's approval; the reply pauses
 * (the channel is free meanwhile) and goes on, under the same reply id, once each request of the step is decided
 * (`POST /api/messaging/replies/{replyId}/approvals`) or expired. The stream stays open and follows it.
 */
export const approvalRequestEventSchema = approvalRequestSchema;

/**
 * `done` stream event: the full reply. `actions` names the actions that ran, in call order, then `REPLY` when
 * the reply has text; `toolCalls` the calls with their outcomes (empty when there were none; a server older than
 * tool calls leaves it out, read as empty). `empty: true` when the agent sent no reply (nothing stored), with
 * the `reason`: `ignored` (it chose not to answer) or `empty` (the model said nothing).
 */
export const doneEventSchema = z.object({
  text: z.string(),
  actions: z.array(z.string()),
  toolCalls: toolCallRecordsSchema.default([]),
  /**
   * The id of the reply's receipt, signed by the agent's TEE key, when the server runs with a TEE: read it at
   * `GET /api/messaging/messages/{messageId}/receipt` (written just after the reply ends).
   */
  receiptId: z.string().optional(),
  ...emptyReplyFields,
});

/** `error` stream event: the reply failed; the stream ends after it. */
export const errorEventSchema = z.object({ code: z.string(), message: z.string() });

/**
 * `gap` stream event: the stream was resumed from a `Last-Event-ID` (`from`) that lies outside what the server
 * retains of the reply; what follows does not continue from it (the client should read the stored reply or
 * the channel's history). Sent once, before the events that follow.
 */
export const gapEventSchema = z.object({
  replyId: z.string(),
  from: z.string(),
  message: z.string(),
});

/** Every server-sent event of the channel `stream` mode, by event name. */
export const streamEventSchemas = {
  user_message: userMessageEventSchema,
  chunk: chunkEventSchema,
  tool_call: toolCallEventSchema,
  tool_result: toolResultEventSchema,
  approval_request: approvalRequestEventSchema,
  done: doneEventSchema,
  error: errorEventSchema,
  gap: gapEventSchema,
} as const;

/** The name of a server-sent event of the `stream` mode. */
export type StreamEventName = keyof typeof streamEventSchemas;

/** A server-sent event of the `stream` mode, discriminated by `event`. */
export type StreamEvent = {
  [K in StreamEventName]: { event: K; id?: string; data: z.infer<(typeof streamEventSchemas)[K]> };
}[StreamEventName];
