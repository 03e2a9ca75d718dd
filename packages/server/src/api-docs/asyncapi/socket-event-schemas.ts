import {
  SOCKET_MESSAGE_TYPE,
  connectionEstablishedSchema,
  controlMessageSchema,
  messageBroadcastSchema,
  messageCompleteSchema,
  messageErrorSchema,
  messageStreamChunkSchema,
  presenceEventSchema,
  cancelReplyPayloadSchema,
  roomJoiningPayloadSchema,
  sendMessagePayloadSchema,
  typingPayloadSchema,
  userTypingSchema,
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
 * Every event the server emits, keyed by name. `satisfies` against the core event map makes a new event in
 * `ServerToClientEvents` a type error here until it is documented, and a stale entry one too.
 */
export const SERVER_EVENTS = {
  connection_established: {
    summary: 'The connection is accepted.',
    payload: connectionEstablishedSchema,
  },
  messageBroadcast: {
    summary:
      'A stored message (user or agent) delivered to a room. Clients keep those whose roomId or channelId is their room.',
    payload: messageBroadcastSchema,
  },
  messageStreamChunk: {
    summary:
      "One live piece of an agent reply; messageId is the id the reply's final messageBroadcast carries.",
    payload: messageStreamChunkSchema,
  },
  messageComplete: {
    summary: 'Processing of a message ended, with or without a reply.',
    payload: messageCompleteSchema,
  },
  messageError: {
    summary:
      'A message failed: a model failure (to the room), or a bad event sent without an acknowledgment callback.',
    payload: messageErrorSchema,
  },
  controlMessage: {
    summary: 'Asks the clients of a room to enable or disable their input.',
    payload: controlMessageSchema,
  },
  userJoined: { summary: 'Another client joined the room.', payload: presenceEventSchema },
  userLeft: {
    summary: 'A client left the room (leaveRoom or disconnect).',
    payload: presenceEventSchema,
  },
  userTyping: {
    summary: 'Typing indicator of another member of the room.',
    payload: userTypingSchema,
  },
} satisfies Record<keyof ServerToClientEvents, Omit<DocumentedSocketEvent, 'event'>>;

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
        "SEND_MESSAGE: store a message in a joined room and have the room's agent reply (messageStreamChunk…, messageBroadcast, messageComplete).",
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
} satisfies Record<keyof ClientToServerEvents, Omit<DocumentedSocketEvent, 'event'>[]>;
