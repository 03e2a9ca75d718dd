import {
  MAX_JSON_DEPTH,
  ParleyError,
  SOCKET_MESSAGE_TYPE,
  type SocketAck,
  cancelReplyPayloadSchema,
  decideApprovalPayloadSchema,
  parseOrThrow,
  roomJoiningPayloadSchema,
  sendMessagePayloadSchema,
  socketEnvelopeSchema,
  typingPayloadSchema,
} from '@parley/core';
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Socket } from 'socket.io';
import { logError, toParleyError } from '../errors/to-parley-error';
import { redactText } from '../redaction/redact';
import { ChannelAccess, postingEntity, socketAskerOf } from '../identity/channel-access';
import { asPerson } from '../messaging/person-scope';
import type { MessagingService } from '../messaging/messaging-service';
import type { ParleySocketServer } from './create-socket-server';
import { TokenBucket } from '../guards/token-bucket';
import { socketAuditScope, withAuditScope } from '../audit/audit-context';
import { annotate, markFailed } from '../tracing/in-span';
import { messageEventOf, socketEventObserver } from '../tracing/socket-tracing';

/** Limits of one socket. */
export interface SocketLimits {
  /** Largest accepted `message` payload, in bytes of its JSON. */
  maxMessageBytes: number;
  /** Events a socket may send in a burst. */
  rateBurst: number;
  /** Events per second a socket may sustain. */
  ratePerSecond: number;
  /** Rooms one connection may be in at once. */
  maxRooms: number;
  /** Who may join and post in which channel's room. */
  access: ChannelAccess;
}

type Ack = (response: SocketAck) => void;

/** What the protocol keeps per socket, on `socket.data`: as little as possible, since idle sockets add up. */
interface SocketState {
  /** Rooms this socket joined, with the entity id it joined as; created on the first join. */
  rooms?: Map<string, string>;
  bucket: TokenBucket;
}

/** The socket's state if it has any: an idle socket that never sent an event carries none. */
const existingStateOf = (socket: Socket) => (socket.data as { parley?: SocketState }).parley;
const ackOf = (ack: unknown): Ack | undefined =>
  typeof ack === 'function' ? (ack as Ack) : undefined;

/**
 * Serves the socket protocol on `io`: ROOM_JOINING, SEND_MESSAGE, typing, leaving and presence. Every handler
 * answers its acknowledgment (or `messageError` when there is none); nothing a client sends can throw out of a
 * handler or cost the client its connection. A socket sends only into rooms it joined, as the entity it joined
 * with. Replies reach the room through the messaging service, like every other reply. One set of handler
 * functions serves every socket (socket.io calls them with `this` set to the socket), so an idle connection
 * costs the protocol one small state object.
 */
export function serveSocketProtocol(
  io: ParleySocketServer,
  messaging: MessagingService,
  limits: SocketLimits,
  logger: Logger,
  tracer?: Tracer,
): void {
  // Each event's handling, and the reply it starts, is one span (with a tracer) and logs with the socket's id.
  const observe = socketEventObserver(tracer);

  const stateOf = (socket: Socket): SocketState =>
    ((socket.data as { parley?: SocketState }).parley ??= {
      bucket: new TokenBucket(limits.rateBurst, limits.ratePerSecond),
    });

  function fail(socket: Socket, error: unknown, ack: unknown) {
    const parleyError = toParleyError(error);
    markFailed(parleyError.code);
    logError(logger, parleyError, { socketId: socket.id });
    // What an error says leaves the server: redacted as every value that leaves it is.
    const body = { code: parleyError.code, message: redactText(parleyError.message) };
    const answer = ackOf(ack);
    if (answer) answer({ status: 'error', error: body });
    else socket.emit('messageError', body);
  }

  function guard(socket: Socket, raw: unknown) {
    if (!stateOf(socket).bucket.take()) {
      throw new ParleyError('RATE_LIMITED', 'Too many events; slow down');
    }
    // Before anything walks it recursively (the size check, the schema): a deep enough payload would overflow
    // the stack there, and that would be an INTERNAL error instead of the client's.
    if (nestedDeeperThan(raw, MAX_PAYLOAD_DEPTH)) {
      throw new ParleyError(
        'BAD_REQUEST',
        `Payload must be nested at most ${MAX_PAYLOAD_DEPTH} levels deep`,
      );
    }
    if (Buffer.byteLength(JSON.stringify(raw) ?? '') > limits.maxMessageBytes) {
      throw new ParleyError(
        'PAYLOAD_TOO_LARGE',
        `Payload exceeds the limit of ${limits.maxMessageBytes} bytes`,
      );
    }
  }

  async function join(socket: Socket, rawPayload: unknown, ack: Ack | undefined) {
    const payload = parseOrThrow(roomJoiningPayloadSchema, rawPayload, 'ROOM_JOINING payload');
    const { roomId } = payload;
    // A person joins only a room of a channel of theirs (one they post into first becomes theirs), as
    // themselves: the entity they name must be their own.
    const who = socketAskerOf(socket);
    const entityId = postingEntity(who, payload.entityId);
    if (!ChannelAccess.isAdmin(who)) await limits.access.assertPost(who, roomId);
    const state = stateOf(socket);
    state.rooms ??= new Map();
    const joinedAs = state.rooms.get(roomId);
    if (joinedAs === undefined && state.rooms.size >= limits.maxRooms) {
      throw new ParleyError(
        'RATE_LIMITED',
        `A connection may be in at most ${limits.maxRooms} rooms; leave one first`,
      );
    }
    state.rooms.set(roomId, entityId);
    annotate({ 'gen_ai.conversation.id': roomId });
    logger.debug({ socketId: socket.id, roomId, entityId }, 'socket joined a room');
    void socket.join(roomId);
    if (joinedAs !== entityId) socket.to(roomId).emit('userJoined', { userId: entityId, roomId });
    ack?.({ status: 'ok', roomId });
  }

  async function send(socket: Socket, rawPayload: unknown, ack: Ack | undefined) {
    const payload = parseOrThrow(sendMessagePayloadSchema, rawPayload, 'SEND_MESSAGE payload');
    requireMember(socket, payload.roomId, payload.senderId);
    annotate({ 'gen_ai.conversation.id': payload.roomId });
    logger.info({ socketId: socket.id, roomId: payload.roomId }, 'socket message');
    // The reply counts against the signed-in person's own budget, as at the HTTP doors.
    const who = socketAskerOf(socket);
    const person = ChannelAccess.isAdmin(who) ? undefined : who?.entityId;
    const { message } = await asPerson(person, () =>
      messaging.converse({
        channelId: payload.roomId,
        text: payload.message,
        entityId: payload.senderId,
        senderName: payload.senderName,
        source: payload.source,
        messageId: payload.messageId,
        agentId: payload.agentId,
        ifBusy: payload.ifBusy,
        metadata:
          payload.attachments.length > 0
            ? { ...payload.metadata, attachments: payload.attachments }
            : payload.metadata,
      }),
    );
    ack?.({ status: 'ok', messageId: message.id, roomId: message.channel_id });
  }

  function onMessage(this: Socket, raw: unknown, ack?: unknown) {
    observe(this, messageEventOf(raw), () => handleMessage(this, raw, ack));
  }

  function handleMessage(socket: Socket, raw: unknown, ack: unknown): Promise<void> | undefined {
    const answer = ackOf(ack);
    try {
      guard(socket, raw);
      const envelope = parseOrThrow(socketEnvelopeSchema, raw, 'message envelope');
      const type: SOCKET_MESSAGE_TYPE = envelope.type;
      switch (type) {
        case SOCKET_MESSAGE_TYPE.ROOM_JOINING:
          return join(socket, envelope.payload, answer).catch((error: unknown) =>
            fail(socket, error, ack),
          );
        case SOCKET_MESSAGE_TYPE.SEND_MESSAGE:
          return send(socket, envelope.payload, answer).catch((error: unknown) =>
            fail(socket, error, ack),
          );
        default:
          throw new ParleyError('BAD_REQUEST', `Unsupported message type ${type}`);
      }
    } catch (error) {
      fail(socket, error, ack);
    }
  }

  function onLeaveRoom(this: Socket, raw: unknown, ack?: unknown) {
    try {
      guard(this, raw);
      const { roomId } = parseOrThrow(roomJoiningPayloadSchema, raw, 'leaveRoom payload');
      leave(this, roomId);
      ackOf(ack)?.({ status: 'ok', roomId });
    } catch (error) {
      fail(this, error, ack);
    }
  }

  // A cancel is refused to a connection that could not post in the room (not joined), like a message would be;
  // it counts against the socket's event rate like every event.
  function onCancelReply(this: Socket, raw: unknown, ack?: unknown) {
    observe(this, 'cancelReply', () => cancelReply(this, raw, ack));
  }

  function cancelReply(socket: Socket, raw: unknown, ack: unknown): Promise<void> | undefined {
    try {
      guard(socket, raw);
      const { replyId, roomId } = parseOrThrow(
        cancelReplyPayloadSchema,
        raw,
        'cancelReply payload',
      );
      annotate({ 'gen_ai.conversation.id': roomId, 'parley.reply.id': replyId });
      if (existingStateOf(socket)?.rooms?.get(roomId) === undefined) {
        throw new ParleyError('FORBIDDEN', `Join room ${roomId} before cancelling its replies`);
      }
      return messaging.cancelReply(replyId, roomId).then(
        () => ackOf(ack)?.({ status: 'ok', roomId, replyId }),
        (error: unknown) => fail(socket, error, ack),
      );
    } catch (error) {
      fail(socket, error, ack);
    }
  }

  // A decision, like a cancel, is refused to a connection that could not post in the room (not joined).
  function onDecideApproval(this: Socket, raw: unknown, ack?: unknown) {
    observe(this, 'decideApproval', () => decideApproval(this, raw, ack));
  }

  function decideApproval(socket: Socket, raw: unknown, ack: unknown): Promise<void> | undefined {
    try {
      guard(socket, raw);
      const { replyId, roomId, ...decision } = parseOrThrow(
        decideApprovalPayloadSchema,
        raw,
        'decideApproval payload',
      );
      annotate({ 'gen_ai.conversation.id': roomId, 'parley.reply.id': replyId });
      const entityId = existingStateOf(socket)?.rooms?.get(roomId);
      if (entityId === undefined) {
        throw new ParleyError('FORBIDDEN', `Join room ${roomId} before deciding its approvals`);
      }
      // Who decided, as a receipt signs it: the entity that joined the room on this socket.
      const decidedBy = `socket:${entityId}`;
      return limits.access
        .assertDecide(socketAskerOf(socket), replyId)
        .then(() =>
          // In the socket's audit scope: the audit names whoever signed in on this socket.
          withAuditScope(socketAuditScope(socket), () =>
            messaging.decideApproval(replyId, { ...decision, decidedBy }, roomId),
          ),
        )
        .then(
          (decided) =>
            ackOf(ack)?.({
              status: 'ok',
              roomId,
              replyId,
              toolCallId: decided.toolCallId,
              decision: decided.status,
            }),
          (error: unknown) => fail(socket, error, ack),
        );
    } catch (error) {
      fail(socket, error, ack);
    }
  }

  function onTyping(this: Socket, raw: unknown) {
    try {
      guard(this, raw);
      const payload = parseOrThrow(typingPayloadSchema, raw, 'typing payload');
      requireMember(this, payload.roomId, payload.userId);
      this.to(payload.roomId).emit('userTyping', payload);
    } catch (error) {
      fail(this, error, undefined);
    }
  }

  function onDisconnect(this: Socket) {
    for (const roomId of [...(existingStateOf(this)?.rooms?.keys() ?? [])]) leave(this, roomId);
  }

  io.on('connection', (socket) => {
    socket.on('message', onMessage);
    socket.on('leaveRoom', onLeaveRoom);
    socket.on('typing', onTyping);
    socket.on('cancelReply', onCancelReply);
    socket.on('decideApproval', onDecideApproval);
    socket.on('disconnect', onDisconnect);
  });
}

/** The envelope and payload around metadata, which may itself be {@link MAX_JSON_DEPTH} levels deep. */
const MAX_PAYLOAD_DEPTH = MAX_JSON_DEPTH + 4;

/**
 * Whether `value` nests objects or arrays more than `limit` levels deep. Iterative, and it stops at the first
 * node past the limit, so no payload can overflow the stack or cost more than its size.
 */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** A socket speaks in a room only after joining it, and only as the entity it joined as. */
function requireMember(socket: Socket, roomId: string, entityId: string) {
  const joinedAs = existingStateOf(socket)?.rooms?.get(roomId);
  if (joinedAs === undefined) {
    throw new ParleyError('FORBIDDEN', `Join room ${roomId} before sending to it`);
  }
  if (joinedAs !== entityId) {
    throw new ParleyError('FORBIDDEN', `This connection joined room ${roomId} as ${joinedAs}`);
  }
}

function leave(socket: Socket, roomId: string) {
  const rooms = existingStateOf(socket)?.rooms;
  const entityId = rooms?.get(roomId);
  if (entityId === undefined) return;
  rooms!.delete(roomId);
  void socket.leave(roomId);
  socket.to(roomId).emit('userLeft', { userId: entityId, roomId });
}
