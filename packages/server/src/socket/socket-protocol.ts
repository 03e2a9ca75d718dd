import {
  type MessageError,
  ParleyError,
  SOCKET_MESSAGE_TYPE,
  type SocketAck,
  parseOrThrow,
  roomJoiningPayloadSchema,
  sendMessagePayloadSchema,
  socketEnvelopeSchema,
  typingPayloadSchema,
} from '@parley/core';
import type { Logger } from 'pino';
import type { Socket } from 'socket.io';
import { logError, toParleyError } from '../http/error-handler';
import type { MessagingService } from '../messaging/messaging-service';
import type { ParleySocketServer } from './create-socket-server';
import { TokenBucket } from './token-bucket';

/** Limits of one socket. */
export interface SocketLimits {
  /** Largest accepted `message` payload, in bytes of its JSON. */
  maxMessageBytes: number;
  /** Events a socket may send in a burst. */
  rateBurst: number;
  /** Events per second a socket may sustain. */
  ratePerSecond: number;
}

type Ack = (response: SocketAck) => void;

interface SocketState {
  /** Rooms this socket joined, with the entity id it joined as. */
  rooms: Map<string, string>;
  bucket: TokenBucket;
}

/**
 * The socket protocol: ROOM_JOINING, SEND_MESSAGE, typing, leaving and presence. Every handler answers its
 * acknowledgment (or `messageError` when there is none); nothing a client sends can throw out of a handler or
 * cost the client its connection.
 */
export function attachSocketProtocol(
  io: ParleySocketServer,
  messaging: MessagingService,
  limits: SocketLimits,
  logger: Logger,
): void {
  io.on('connection', (socket) => {
    const state: SocketState = {
      rooms: new Map(),
      bucket: new TokenBucket(limits.rateBurst, limits.ratePerSecond),
    };

    const fail = (error: unknown, ack: unknown, context: Partial<MessageError> = {}) => {
      const parleyError = toParleyError(error);
      logError(logger, parleyError, { socketId: socket.id });
      const body = { code: parleyError.code, message: parleyError.message };
      if (typeof ack === 'function') (ack as Ack)({ status: 'error', error: body });
      else socket.emit('messageError', { ...body, ...context });
    };

    const guard = (raw: unknown) => {
      if (!state.bucket.take()) {
        throw new ParleyError('RATE_LIMITED', 'Too many events; slow down');
      }
      if (Buffer.byteLength(JSON.stringify(raw) ?? '') > limits.maxMessageBytes) {
        throw new ParleyError(
          'PAYLOAD_TOO_LARGE',
          `Payload exceeds the limit of ${limits.maxMessageBytes} bytes`,
        );
      }
    };

    socket.on('message', (raw: unknown, ack?: unknown) => {
      try {
        guard(raw);
        const envelope = parseOrThrow(socketEnvelopeSchema, raw, 'message envelope');
        const type: SOCKET_MESSAGE_TYPE = envelope.type;
        switch (type) {
          case SOCKET_MESSAGE_TYPE.ROOM_JOINING:
            return void join(socket, state, envelope.payload, ack as Ack | undefined);
          case SOCKET_MESSAGE_TYPE.SEND_MESSAGE:
            return void send(envelope.payload, ack).catch((error: unknown) => fail(error, ack));
          default:
            throw new ParleyError('BAD_REQUEST', `Unsupported message type ${type}`);
        }
      } catch (error) {
        fail(error, ack);
      }
    });

    socket.on('leaveRoom', (raw: unknown, ack?: unknown) => {
      try {
        guard(raw);
        const { roomId } = parseOrThrow(roomJoiningPayloadSchema, raw, 'leaveRoom payload');
        leave(socket, state, roomId);
        if (typeof ack === 'function') (ack as Ack)({ status: 'ok', roomId });
      } catch (error) {
        fail(error, ack);
      }
    });

    socket.on('typing', (raw: unknown) => {
      try {
        guard(raw);
        const payload = parseOrThrow(typingPayloadSchema, raw, 'typing payload');
        if (!state.rooms.has(payload.roomId)) {
          throw new ParleyError('FORBIDDEN', 'Join the room before sending typing indicators');
        }
        socket.to(payload.roomId).emit('userTyping', payload);
      } catch (error) {
        fail(error, undefined);
      }
    });

    socket.on('disconnect', () => {
      for (const roomId of [...state.rooms.keys()]) leave(socket, state, roomId);
    });

    async function send(rawPayload: unknown, ack: unknown) {
      const payload = parseOrThrow(sendMessagePayloadSchema, rawPayload, 'SEND_MESSAGE payload');
      const { message, agent } = await messaging.postUserMessage({
        channelId: payload.roomId,
        text: payload.message,
        entityId: payload.senderId,
        senderName: payload.senderName,
        source: payload.source,
        messageId: payload.messageId,
        metadata:
          payload.attachments.length > 0
            ? { ...payload.metadata, attachments: payload.attachments }
            : payload.metadata,
      });
      if (typeof ack === 'function') {
        (ack as Ack)({ status: 'ok', messageId: message.id, roomId: message.channel_id });
      }
      messaging.reply(agent, message).catch((error: unknown) => {
        const parleyError = toParleyError(error);
        logError(logger, parleyError, { channelId: message.channel_id, messageId: message.id });
        io.to(message.channel_id).emit('messageError', {
          code: parleyError.code,
          message: parleyError.message,
          messageId: message.id,
          roomId: message.channel_id,
        });
      });
    }
  });
}

function join(socket: Socket, state: SocketState, rawPayload: unknown, ack: Ack | undefined) {
  const { roomId, entityId } = parseOrThrow(
    roomJoiningPayloadSchema,
    rawPayload,
    'ROOM_JOINING payload',
  );
  const alreadyIn = state.rooms.has(roomId);
  state.rooms.set(roomId, entityId);
  void socket.join(roomId);
  if (!alreadyIn) socket.to(roomId).emit('userJoined', { userId: entityId, roomId });
  ack?.({ status: 'ok', roomId });
}

function leave(socket: Socket, state: SocketState, roomId: string) {
  const entityId = state.rooms.get(roomId);
  if (entityId === undefined) return;
  state.rooms.delete(roomId);
  void socket.leave(roomId);
  socket.to(roomId).emit('userLeft', { userId: entityId, roomId });
}
