import {
  SOCKET_MESSAGE_TYPE,
  cancelReplyPayloadSchema,
  decideApprovalPayloadSchema,
  roomJoiningPayloadSchema,
  sendMessagePayloadSchema,
  typingPayloadSchema,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from '@parley/core';
import type { z } from 'zod';

/** A socket event as the AsyncAPI document describes it. */
export interface DocumentedSocketEvent {
  /** The socket.io event name. */
  event: string;
  summary: string;
  payload: z.ZodType;
  /** For the `message` event: the SOCKET_MESSAGE_TYPE the envelope carries. */
  messageType?: SOCKET_MESSAGE_TYPE;
  /** Whether the sender may pass an acknowledgment callback. */
  acknowledged?: boolean;
}

/**
 * What each event the server emits means, by name (its payload schema is core's `SERVER_EVENT_SCHEMAS`).
 * `satisfies` against the core event map makes a new event a type error here until it is documented.
 */
export const SERVER_EVENTS = {
  connection_established: 'The connection is accepted.',
  messageBroadcast:
    'A stored message (user or agent) delivered to a room. Clients keep those whose roomId or channelId is their room.',
  messageStreamChunk:
    "One live piece of an agent reply; messageId is the id the reply's final messageBroadcast carries.",
  toolCall:
    'A running agent reply called a tool (one of its actions) with `input`, before it runs; messageId is the reply id.',
  toolResult:
    'The outcome of the toolCall of the same toolCallId: `output`, or `error` when the call failed (the reply goes on).',
  approvalRequest:
    "A running reply called an action that needs a person's approval and pauses (the room is free meanwhile) until decideApproval or POST /api/messaging/replies/{replyId}/approvals decides it, or it expires at expiresAt; its toolResult follows the decision.",
  messageComplete: 'Processing of a message ended, with or without a reply.',
  messageError:
    'A message failed: a model failure (to the room), or a bad event sent without an acknowledgment callback.',
  controlMessage: 'Asks the clients of a room to enable or disable their input.',
  userJoined: 'Another client joined the room.',
  userLeft: 'A client left the room (leaveRoom or disconnect).',
  userTyping: 'Typing indicator of another member of the room.',
  channelCreated:
    'A channel was created (POST /api/messaging/channels, or a DM channel first asked for): to every connected socket, in every process of a cluster.',
  channelUpdated:
    'A channel was renamed or changed (its agent, topic, metadata): to every connected socket. Of two events for one channel, the later `updatedAt` is its state.',
  channelDeleted:
    'A channel and its messages were deleted: to every connected socket, in every process of a cluster.',
  messageDeleted: "A message of the room's channel was deleted: to the room's members.",
  channelCleared: "The history of the room's channel was cleared: to the room's members.",
} satisfies Record<keyof ServerToClientEvents, string>;

/**
 * Every event a client sends, by event name; `message` is one event per SOCKET_MESSAGE_TYPE a client may
 * send. Typed against the core event map like {@link SERVER_EVENTS}.
 */
export const CLIENT_EVENTS = {
  message: [
    {
      summary:
        'ROOM_JOINING: join a room; the other members get userJoined. Needed before broadcasts arrive.',
      payload: roomJoiningPayloadSchema,
      messageType: SOCKET_MESSAGE_TYPE.ROOM_JOINING,
      acknowledged: true,
    },
    {
      summary:
        "SEND_MESSAGE: store a message in a joined room and have the room's agent reply (messageStreamChunk and toolCall/toolResult…, messageBroadcast, messageComplete).",
      payload: sendMessagePayloadSchema,
      messageType: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
      acknowledged: true,
    },
  ],
  typing: [
    {
      summary: 'Typing indicator, relayed to the other members as userTyping.',
      payload: typingPayloadSchema,
    },
  ],
  leaveRoom: [
    {
      summary: 'Leave a room; the other members get userLeft.',
      payload: roomJoiningPayloadSchema,
      acknowledged: true,
    },
  ],
  cancelReply: [
    {
      summary:
        'Cancel a running reply in a joined room (any process of the cluster): the room gets messageError code CANCELLED, then messageComplete. Ack error NOT_FOUND (unknown reply), CONFLICT (already ended), FORBIDDEN (room not joined).',
      payload: cancelReplyPayloadSchema,
      acknowledged: true,
    },
  ],
  decideApproval: [
    {
      summary:
        'Approve or deny a call of a paused reply in a joined room (any process of the cluster); once every request of its step is decided the reply goes on under the same id. Ack `{status: "ok", roomId, replyId, toolCallId, decision: "approved" | "denied"}`, or error NOT_FOUND (unknown reply or call), CONFLICT (already decided or expired), FORBIDDEN (room not joined).',
      payload: decideApprovalPayloadSchema,
      acknowledged: true,
    },
  ],
} satisfies Record<keyof ClientToServerEvents, Omit<DocumentedSocketEvent, 'event'>[]>;
