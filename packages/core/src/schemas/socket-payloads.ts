import { z } from 'zod';
import type { SOCKET_MESSAGE_TYPE } from '../socket/message-type';
import {
  entityIdSchema,
  labelSchema,
  messageTextSchema,
  metadataSchema,
  refineStorableJson,
  storableString,
  uuidSchema,
} from './common';
import { isReservedUuid } from '../ids/reserved-uuid';
import { emptyReplyReasonSchema, ifBusySchema } from './channel-message';
import { toolCallIdSchema, toolErrorSchema, toolJsonSchema, toolNameSchema } from './tool-calls';
import { approvalDecisionSchema } from './approvals';

/**
 * `roomId`, or its newer name `channelId` ("a room and a channel are the same thing"): either is accepted;
 * when both are given they must be equal. The parsed payload always has `roomId`.
 */
const roomReference = {
  roomId: uuidSchema.optional(),
  channelId: uuidSchema.optional(),
};

interface RoomReference {
  roomId?: string;
  channelId?: string;
}

function checkRoom(value: RoomReference, context: z.RefinementCtx): void {
  if (value.roomId === undefined && value.channelId === undefined) {
    context.addIssue({ code: 'custom', path: ['roomId'], message: 'is required (or channelId)' });
  } else if (
    value.roomId !== undefined &&
    value.channelId !== undefined &&
    value.roomId !== value.channelId
  ) {
    context.addIssue({
      code: 'custom',
      path: ['channelId'],
      message: 'must equal roomId (they name the same room)',
    });
  }
}

function toRoom<Value extends RoomReference>({
  roomId,
  channelId,
  ...rest
}: Value): Omit<Value, 'roomId' | 'channelId'> & { roomId: string } {
  return { ...rest, roomId: (roomId ?? channelId)! };
}

/** Payload of a ROOM_JOINING envelope (and of `leaveRoom`). */
export const roomJoiningPayloadSchema = z
  .object({ entityId: entityIdSchema, ...roomReference })
  .superRefine(checkRoom)
  .transform(toRoom);

/** Payload of a SEND_MESSAGE envelope. */
export const sendMessagePayloadSchema = z
  .object({
    ...roomReference,
    senderId: entityIdSchema,
    senderName: labelSchema,
    message: messageTextSchema.min(1, 'must not be empty'),
    messageId: uuidSchema
      .refine(
        (id) => !isReservedUuid(id),
        'must not be a version 8 UUID (the server reserves those)',
      )
      .optional(),
    source: storableString().max(64).default('socket'),
    /** The agent that should answer (default: the channel's agent, else the default agent). */
    agentId: uuidSchema.optional(),
    attachments: z.array(z.unknown()).max(64).superRefine(refineStorableJson).default([]),
    metadata: metadataSchema.default({}),
    /** What the message does while a reply to the room runs (see `ifBusySchema`). */
    ifBusy: ifBusySchema.optional(),
  })
  .superRefine(checkRoom)
  .transform(toRoom);

/**
 * Payload of the `cancelReply` event: the reply to stop and the room it answers in. Only a connection that
 * joined the room may cancel its replies; the ack is `{ status: 'ok', roomId }` when the reply was running,
 * else an error (NOT_FOUND, CONFLICT when it already ended).
 */
export const cancelReplyPayloadSchema = z
  .object({ replyId: uuidSchema, ...roomReference })
  .superRefine(checkRoom)
  .transform(toRoom);

/** @see cancelReplyPayloadSchema */
export type CancelReplyPayload = z.input<typeof cancelReplyPayloadSchema>;

/**
 * Payload of the `decideApproval` event: approves or denies one call of a paused reply in a room this connection
 * joined. The ack is `{ status: 'ok', roomId, replyId, toolCallId, decision }` when the decision was taken, else an error (NOT_FOUND, CONFLICT
 * when already decided or expired, FORBIDDEN for a room not joined).
 */
export const decideApprovalPayloadSchema = z
  .object({ replyId: uuidSchema, ...approvalDecisionSchema.shape, ...roomReference })
  .strict()
  .superRefine(checkRoom)
  .transform(toRoom);

/** @see decideApprovalPayloadSchema */
export type DecideApprovalPayload = z.input<typeof decideApprovalPayloadSchema>;

/** @see roomJoiningPayloadSchema */
export type RoomJoiningPayload = z.output<typeof roomJoiningPayloadSchema>;
/** SEND_MESSAGE payload as a client writes it. */
export type SendMessagePayloadInput = z.input<typeof sendMessagePayloadSchema>;
/** SEND_MESSAGE payload after validation. */
export type SendMessagePayload = z.output<typeof sendMessagePayloadSchema>;

/** The socket `message` envelope: an opcode and its payload. */
export const socketEnvelopeSchema = z.object({
  type: z.number().int(),
  payload: z.unknown(),
});

/** A socket `message` envelope as a client sends it. */
export type SocketEnvelope =
  | { type: SOCKET_MESSAGE_TYPE.ROOM_JOINING; payload: z.input<typeof roomJoiningPayloadSchema> }
  | { type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE; payload: SendMessagePayloadInput };

/** Client-to-server `typing` payload. */
export const typingPayloadSchema = z
  .object({ userId: entityIdSchema, isTyping: z.boolean(), ...roomReference })
  .superRefine(checkRoom)
  .transform(toRoom);

/** @see typingPayloadSchema */
export type TypingPayload = z.output<typeof typingPayloadSchema>;

/** `messageBroadcast`: a stored message delivered to a room. */
export const messageBroadcastSchema = z.object({
  id: z.string(),
  roomId: z.string(),
  channelId: z.string(),
  senderId: z.string(),
  senderName: z.string(),
  text: z.string(),
  source: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  inReplyTo: z.string().nullable(),
  createdAt: z.string(),
  thought: z.string().optional(),
  actions: z.array(z.string()).optional(),
  /**
   * Only on elizaOS's action notifications (`source: 'agent_action'`, sent for messages from elizaOS's web
   * client): `{ actionStatus: 'executing' | 'completed' | 'failed', actionId, type: 'agent_action', … }`.
   */
  rawMessage: z.record(z.string(), z.unknown()).optional(),
});

/** @see messageBroadcastSchema */
export type MessageBroadcast = z.infer<typeof messageBroadcastSchema>;

/** `messageStreamChunk`: one live piece of an agent reply that is still being produced. */
export const messageStreamChunkSchema = z.object({
  messageId: z.string(),
  chunk: z.string(),
  index: z.number().int().nonnegative(),
  roomId: z.string(),
  channelId: z.string(),
  /** The agent producing the reply. */
  agentId: z.string(),
  agentName: z.string(),
});

/** @see messageStreamChunkSchema */
export type MessageStreamChunk = z.infer<typeof messageStreamChunkSchema>;

/** Who makes a tool call, in which reply and room: the fields `toolCall` and `toolResult` share. */
const toolEventFields = {
  /** The reply's id: its `messageStreamChunk`s and final `messageBroadcast` carry the same. */
  messageId: z.string(),
  roomId: z.string(),
  channelId: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  toolCallId: toolCallIdSchema,
  toolName: toolNameSchema,
};

/** `toolCall`: an agent reply that is still running called a tool with these arguments. */
export const toolCallSchema = z.object({ ...toolEventFields, input: toolJsonSchema });

/** @see toolCallSchema */
export type ToolCall = z.infer<typeof toolCallSchema>;

/**
 * `toolResult`: the outcome of the `toolCall` of the same `toolCallId`: its `output`, or `error` when it failed
 * (the model is told either way, and the reply goes on).
 */
export const toolResultSchema = z.object({
  ...toolEventFields,
  output: toolJsonSchema.optional(),
  error: toolErrorSchema.optional(),
});

/** @see toolResultSchema */
export type ToolResult = z.infer<typeof toolResultSchema>;

/**
 * `approvalRequest`: a running reply called an action that needs a person's approval, and pauses until it is
 * decided (`decideApproval`, or REST) or expires at `expiresAt`; its `toolResult` follows the decision.
 */
export const roomApprovalRequestSchema = z.object({
  ...toolEventFields,
  input: toolJsonSchema,
  expiresAt: z.string(),
});

/** @see roomApprovalRequestSchema */
export type RoomApprovalRequest = z.infer<typeof roomApprovalRequestSchema>;

/**
 * `messageComplete`: processing of a message ended, with or without a reply. When the agent sent none, it says
 * so: `empty: true`, the `reason` (`ignored`: it chose not to answer; `empty`: the model said nothing) and the
 * `replyId` its chunks, if any, were streamed under (no `messageBroadcast` came, or will).
 */
export const messageCompleteSchema = z.object({
  messageId: z.string(),
  roomId: z.string(),
  channelId: z.string(),
  replyId: z.string().optional(),
  empty: z.boolean().optional(),
  reason: emptyReplyReasonSchema.optional(),
  /**
   * The id of the reply's receipt, signed by the agent's TEE key, when the server runs with a TEE: read it at
   * `GET /api/messaging/messages/{messageId}/receipt` (written just after the reply ends).
   */
  receiptId: z.string().optional(),
});

/** @see messageCompleteSchema */
export type MessageComplete = z.infer<typeof messageCompleteSchema>;

/** `controlMessage`: asks clients to enable or disable their input. */
export const controlMessageSchema = z.object({
  action: z.enum(['enable_input', 'disable_input']),
  target: z.string().optional(),
  roomId: z.string(),
  channelId: z.string(),
});

/** @see controlMessageSchema */
export type ControlMessage = z.infer<typeof controlMessageSchema>;

/** `connection_established`: sent once the connection is accepted. */
export const connectionEstablishedSchema = z.object({ socketId: z.string() });

/** `userJoined` and `userLeft`. */
export const presenceEventSchema = z.object({ userId: z.string(), roomId: z.string() });

/** @see presenceEventSchema */
export type PresenceEvent = z.infer<typeof presenceEventSchema>;

/** `userTyping`: typing indicator relayed to the other members of a room. */
export const userTypingSchema = z.object({
  roomId: z.string(),
  userId: z.string(),
  isTyping: z.boolean(),
});

/** @see userTypingSchema */
export type UserTyping = z.infer<typeof userTypingSchema>;

/** An error reported on the socket, as an acknowledgment or as a `messageError` event. */
export const socketErrorSchema = z.object({ code: z.string(), message: z.string() });

/** `messageError`: a `message` event failed and the client gave no acknowledgment callback. */
export const messageErrorSchema = socketErrorSchema.extend({
  messageId: z.string().optional(),
  roomId: z.string().optional(),
  channelId: z.string().optional(),
});

/** @see messageErrorSchema */
export type MessageError = z.infer<typeof messageErrorSchema>;

/** The acknowledgment a `message` event's callback receives. */
export const socketAckSchema = z.discriminatedUnion('status', [
  z.looseObject({ status: z.literal('ok') }),
  z.object({ status: z.literal('error'), error: socketErrorSchema }),
]);

/** @see socketAckSchema */
export type SocketAck =
  | ({ status: 'ok' } & Record<string, unknown>)
  | { status: 'error'; error: { code: string; message: string } };
