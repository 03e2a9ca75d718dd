import { z } from 'zod';
import {
  entityIdSchema,
  instantSchema,
  labelSchema,
  messageTextSchema,
  metadataSchema,
  uuidSchema,
} from './common';
import { toolCallRecordsSchema } from './tool-calls';
import { approvalRequestSchema } from './approvals';

/** How the caller of the channel messages endpoint receives the agent's reply. */
export const deliveryModeSchema = z.enum(['websocket', 'stream', 'sync']);

/** @see deliveryModeSchema */
export type DeliveryMode = z.infer<typeof deliveryModeSchema>;

/**
 * What a channel message does while a reply to the channel is running: `enqueue` waits its turn (the default),
 * `reject` is refused with CHANNEL_BUSY (409), `interrupt` cancels the running reply (it ends with CANCELLED)
 * and is answered with both messages in the history.
 */
export const ifBusySchema = z.enum(['enqueue', 'reject', 'interrupt']);

/** @see ifBusySchema */
export type IfBusy = z.infer<typeof ifBusySchema>;

/** Body of `POST /api/messaging/channels/{channelId}/messages`. */
export const channelMessageRequestSchema = z.object({
  text: messageTextSchema.min(1, 'must not be empty'),
  entityId: entityIdSchema,
  mode: deliveryModeSchema.default('websocket'),
  agentId: uuidSchema.optional(),
  senderName: labelSchema.optional(),
  metadata: metadataSchema.optional(),
  /** Default: the answering agent's character `ifBusy`, else `enqueue`. */
  ifBusy: ifBusySchema.optional(),
});

/** `data` of the 202 answer of `POST /api/messaging/replies/{replyId}/cancel`. */
export const cancelledReplySchema = z.object({
  replyId: z.string(),
  status: z.literal('cancelled'),
});

/** The channel message request as a caller writes it. */
export type ChannelMessageRequestInput = z.input<typeof channelMessageRequestSchema>;
/** The channel message request after validation. */
export type ChannelMessageRequest = z.output<typeof channelMessageRequestSchema>;

/** The user's message as echoed back to the caller. */
export const userMessageSummarySchema = z.object({ id: z.string(), text: z.string() });

/**
 * Why a reply ended with nothing said and nothing stored: `ignored`, the agent chose not to answer (it named
 * actions such as `IGNORE` or `NONE` and no `REPLY`); `empty`, the model's answer had no text.
 */
export const emptyReplyReasonSchema = z.enum(['ignored', 'empty']);

/** @see emptyReplyReasonSchema */
export type EmptyReplyReason = z.infer<typeof emptyReplyReasonSchema>;

/**
 * How an answer says the agent sent no reply: `empty: true` and the `reason`, present only then (a reply that
 * was sent has neither, as from a server older than these fields).
 */
export const emptyReplyFields = {
  /** True when the agent sent no reply: nothing was stored or broadcast; `reason` says why. */
  empty: z.boolean().optional(),
  /** With `empty`: why. */
  reason: emptyReplyReasonSchema.optional(),
};

/**
 * The agent's complete reply: its text, the actions that ran (in call order, then `REPLY` when it has text) and
 * its tool calls with their outcomes (empty when there were none; a server older than tool calls leaves it out,
 * read as empty). `empty: true` when the agent sent none (`text` is then what it had, usually nothing, and
 * `reason` says why).
 */
export const agentResponseSchema = z.object({
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

/** @see agentResponseSchema */
export type AgentResponse = z.infer<typeof agentResponseSchema>;

/** Response of mode `websocket`: the message is queued; the reply arrives on the socket. */
export const websocketModeResponseSchema = z.object({
  success: z.boolean(),
  userMessage: userMessageSummarySchema,
  /** The id the agent's reply has (and will be stored under): to match its broadcast or resume its stream. */
  replyId: z.string().optional(),
});

/**
 * Response of mode `sync`: the user message and the agent's full reply. A reply that paused for approval answers
 * 202 with `awaitingApproval` (the calls waiting, non-empty) and `agentResponse` holding what the reply has so far;
 * it goes on once they are decided (read it with `GET /api/messaging/replies/{replyId}/events`).
 */
export const syncModeResponseSchema = websocketModeResponseSchema.extend({
  agentResponse: agentResponseSchema,
  awaitingApproval: z.array(approvalRequestSchema).optional(),
});

/** @see websocketModeResponseSchema */
export type WebsocketModeResponse = z.infer<typeof websocketModeResponseSchema>;
/** @see syncModeResponseSchema */
export type SyncModeResponse = z.infer<typeof syncModeResponseSchema>;

/** Query of `GET /api/messaging/channels/{channelId}/messages`. */
export const channelHistoryQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /**
   * Where the page ends: a message id (the oldest message of the previous page: the exact cursor, never
   * skipping messages that share a timestamp) or an ISO 8601 instant (only messages strictly before it).
   */
  before: z.union([uuidSchema, instantSchema]).optional(),
});

/** @see channelHistoryQuerySchema */
export type ChannelHistoryQuery = z.output<typeof channelHistoryQuerySchema>;

/** Body of `POST /api/messaging/channels/{channelId}/messages/{messageId}/edit`: the message's new text. */
export const editMessageRequestSchema = z.strictObject({
  text: messageTextSchema.refine((text) => text.trim() !== '', 'must not be empty'),
});

/** @see editMessageRequestSchema */
export type EditMessageRequest = z.infer<typeof editMessageRequestSchema>;
