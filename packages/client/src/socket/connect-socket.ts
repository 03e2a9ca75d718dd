import {
  type ApprovalDecided,
  type ClientToServerEvents,
  SOCKET_MESSAGE_TYPE,
  type ServerToClientEvents,
  type SocketEnvelope,
  socketAckSchema,
} from '@parley/core';
import { type Socket, io } from 'socket.io-client';
import { ParleyClientError } from '../client-error';
import { type Credential, currentCredential } from '../rest/http-config';
import { invalidResponseError } from '../rest/invalid-response-error';
import type { ConnectionState } from './connection-state';
import { ROOM_EVENT_SCHEMAS, type RoomEventListener, type RoomEventName } from './room-events';
import { ackTimeoutError, toAckError, toApprovalDecided } from './to-ack-error';

/** Options of {@link connectSocket}. Defaults are SPEC.md's reference client settings. */
export interface ConnectSocketOptions {
  /** The server's base address, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /**
   * Sent as `auth.apiKey`: the server's `SERVER_AUTH_TOKEN`, or a person's access token. A function is asked at
   * each connection and reconnection.
   */
  apiKey?: Credential;
  /** Transports in the order tried (default polling, then an upgrade to websocket). */
  transports?: ['polling', 'websocket'] | ['polling'] | ['websocket'];
  /** Forces long-polling only (for proxies that break websockets). Wins over `transports`. */
  pollingOnly?: boolean;
  /** Reconnect after a lost connection (default true). */
  reconnection?: boolean;
  /** Delay before reconnecting, in ms (default 1000). */
  reconnectionDelay?: number;
  /** Reconnection attempts before giving up (default 5). */
  reconnectionAttempts?: number;
  /** Connection timeout in ms (default 20000). */
  timeout?: number;
  /** How long `joinRoom`, `leaveRoom` and `sendMessage` wait for their acknowledgment, in ms (default 10000). */
  ackTimeout?: number;
  /** Called with room events the client dropped because they did not match their schema. */
  onInvalidEvent?: (error: ParleyClientError) => void;
}

/** A message sent into a room over the socket. */
export interface SocketMessage {
  text: string;
  senderId: string;
  senderName: string;
  /** A UUID chosen by the client; the server uses it as the stored message's id. */
  messageId?: string;
  metadata?: Record<string, unknown>;
  attachments?: unknown[];
  /** While a reply to the room runs: `enqueue` (default), `reject` (CHANNEL_BUSY), `interrupt`. */
  ifBusy?: 'enqueue' | 'reject' | 'interrupt';
}

/** A connection to a Parley server's event socket. */
export interface ParleySocket {
  /** Whether the connection is up right now. */
  readonly connected: boolean;
  /** Ids of the rooms this client joined (lower case, as the server normalises them). */
  readonly rooms: readonly string[];
  /** Joins a room as `entityId`; broadcasts of the room are delivered from then on, and after reconnects. */
  joinRoom(roomId: string, entityId: string): Promise<{ roomId: string }>;
  /** Leaves a room; its events stop being delivered at once. */
  leaveRoom(roomId: string): Promise<void>;
  /** Sends a message into a room; resolves once the server stored it. The reply comes as `messageBroadcast`. */
  sendMessage(
    roomId: string,
    message: SocketMessage,
  ): Promise<{ messageId: string; roomId: string }>;
  /**
   * Cancels a running reply in a joined room; the room gets `messageError` with code `CANCELLED`. Rejects with
   * `NOT_FOUND`, `CONFLICT` (already ended) or `FORBIDDEN` (room not joined).
   */
  cancelReply(roomId: string, replyId: string): Promise<void>;
  /**
   * Approves or denies a call of a reply paused for approval (`approvalRequest`) in a joined room; a denial's
   * `reason` reaches the model. Resolves once taken; the room then hears the call's `toolResult` and the rest of
   * the reply. Rejects with `NOT_FOUND`, `CONFLICT` (already decided or expired) or `FORBIDDEN` (room not joined).
   */
  decideApproval(
    roomId: string,
    replyId: string,
    toolCallId: string,
    approved: boolean,
    reason?: string,
  ): Promise<ApprovalDecided>;
  /** Typing indicator for a joined room; the other members get `userTyping`. */
  setTyping(roomId: string, userId: string, isTyping: boolean): void;
  /** Listens to a server event, for the rooms this client joined only. Returns the unsubscribe function. */
  on<E extends RoomEventName>(event: E, listener: RoomEventListener<E>): () => void;
  /** Listens to connection changes. Returns the unsubscribe function. */
  onConnectionChange(listener: (state: ConnectionState) => void): () => void;
  /** Closes the connection for good. */
  disconnect(): void;
}

type ParleySocketIo = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * Connects to a Parley server's event socket (socket.io 4) with typed, room-filtered events and automatic
 * re-joining of every joined room after a reconnect, including after a server restart.
 *
 * @example
 * const socket = connectSocket({ baseUrl: 'http://localhost:3000' });
 * await socket.joinRoom(channelId, userId);
 * const stop = socket.on('messageBroadcast', (message) => render(message.senderName, message.text));
 * await socket.sendMessage(channelId, { text: 'Hello', senderId: userId, senderName: 'Ada' });
 */
export function connectSocket(options: ConnectSocketOptions): ParleySocket {
  const ackTimeout = options.ackTimeout ?? 10_000;
  const socket: ParleySocketIo = io(options.baseUrl.replace(/\/+$/, ''), {
    path: '/socket.io',
    transports: options.pollingOnly
      ? ['polling']
      : (options.transports ?? ['polling', 'websocket']),
    reconnection: options.reconnection ?? true,
    reconnectionDelay: options.reconnectionDelay ?? 1000,
    reconnectionAttempts: options.reconnectionAttempts ?? 5,
    timeout: options.timeout ?? 20_000,
    // One manager per client: disconnecting one client must not close another's connection.
    forceNew: true,
    auth: (send) => {
      const apiKey = currentCredential(options.apiKey);
      send(apiKey === undefined ? {} : { apiKey });
    },
  });
  /** Joined rooms by normalised id, with the entity each was joined as. */
  const rooms = new Map<string, string>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  let connectedBefore = false;

  const roomListeners = new Map<RoomEventName, Set<(payload: unknown) => void>>();

  function dispatch(event: RoomEventName, payload: unknown) {
    const parsed = ROOM_EVENT_SCHEMAS[event].safeParse(payload);
    if (!parsed.success) {
      options.onInvalidEvent?.(invalidResponseError(0, `"${event}" event`, parsed.error.issues));
      return;
    }
    const { roomId } = parsed.data as { roomId?: string };
    // A messageError without a room answers something this client sent: it is always ours.
    if (roomId !== undefined && !rooms.has(roomId.toLowerCase())) return;
    for (const listener of roomListeners.get(event) ?? []) listener(parsed.data);
  }

  const report = (state: ConnectionState) => {
    for (const listener of connectionListeners) listener(state);
  };

  /**
   * Emits an acknowledged event with socket.io's own `timeout().emitWithAck()` (the payload is typed by the
   * event map in core) and checks the answer against the core schema.
   */
  async function emitWithAck<E extends Exclude<keyof ClientToServerEvents, 'typing'>>(
    event: E,
    payload: Parameters<ClientToServerEvents[E]>[0],
    what: string,
  ): Promise<Record<string, unknown>> {
    let ack: unknown;
    try {
      // socket.io cannot type an emit whose event name is a union; `payload` is typed by `E` above.
      ack = await (socket as unknown as Socket).timeout(ackTimeout).emitWithAck(event, payload);
    } catch {
      throw ackTimeoutError(what, ackTimeout);
    }
    const parsed = socketAckSchema.safeParse(ack);
    if (!parsed.success) throw invalidResponseError(0, `${what} acknowledgment`);
    if (parsed.data.status === 'error') throw toAckError(parsed.data.error);
    return parsed.data;
  }

  async function joinRoom(roomId: string, entityId: string) {
    const key = roomId.toLowerCase();
    // Registered before the ack: events the server sends right after joining must not be filtered out.
    rooms.set(key, entityId);
    try {
      const envelope: SocketEnvelope = {
        type: SOCKET_MESSAGE_TYPE.ROOM_JOINING,
        payload: { roomId, entityId },
      };
      await emitWithAck('message', envelope, 'ROOM_JOINING');
      return { roomId: key };
    } catch (error) {
      if (rooms.get(key) === entityId) rooms.delete(key);
      throw error;
    }
  }

  async function rejoinAll() {
    const entries = [...rooms];
    const results = await Promise.allSettled(
      entries.map(([roomId, entityId]) => joinRoom(roomId, entityId)),
    );
    return entries.filter((_, index) => results[index]?.status === 'fulfilled').map(([id]) => id);
  }

  socket.on('connect', () => {
    if (!connectedBefore) {
      connectedBefore = true;
      report({ status: 'connected', rejoined: [] });
      return;
    }
    // A new connection (reconnect or server restart) starts in no room: join them all again.
    void rejoinAll().then((rejoined) => report({ status: 'connected', rejoined }));
  });
  socket.on('disconnect', (reason) => {
    const reconnecting = options.reconnection !== false && reason !== 'io client disconnect';
    report({ status: 'disconnected', reason, willReconnect: reconnecting });
    // socket.io leaves a server-side disconnect alone; a restarting Parley server is worth reconnecting to.
    if (reconnecting && reason === 'io server disconnect') socket.connect();
  });
  socket.on('connect_error', (error) => {
    // While `active`, socket.io retries by itself; otherwise the server refused us (middleware error).
    if (socket.active) return;
    const unauthorized = /unauthori[sz]ed/i.test(error.message);
    report({
      status: 'failed',
      error: new ParleyClientError(
        unauthorized ? 401 : 0,
        unauthorized ? 'UNAUTHORIZED' : 'NETWORK_ERROR',
        error.message,
        { cause: error, retryable: !unauthorized },
      ),
    });
  });
  socket.io.on('reconnect_attempt', (attempt) => report({ status: 'reconnecting', attempt }));
  socket.io.on('reconnect_failed', () =>
    report({
      status: 'failed',
      error: new ParleyClientError(0, 'NETWORK_ERROR', 'Gave up reconnecting to the server'),
    }),
  );

  return {
    get connected() {
      return socket.connected;
    },
    get rooms() {
      return [...rooms.keys()];
    },
    joinRoom,
    async leaveRoom(roomId) {
      const key = roomId.toLowerCase();
      const entityId = rooms.get(key);
      if (entityId === undefined) return;
      rooms.delete(key);
      await emitWithAck('leaveRoom', { roomId, entityId }, 'leaveRoom');
    },
    async sendMessage(roomId, message) {
      const ack = await emitWithAck(
        'message',
        {
          type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
          payload: {
            roomId,
            message: message.text,
            senderId: message.senderId,
            senderName: message.senderName,
            messageId: message.messageId,
            metadata: message.metadata ?? {},
            attachments: message.attachments ?? [],
            ...(message.ifBusy ? { ifBusy: message.ifBusy } : {}),
          },
        },
        'SEND_MESSAGE',
      );
      if (typeof ack.messageId !== 'string' || typeof ack.roomId !== 'string') {
        throw invalidResponseError(0, 'SEND_MESSAGE acknowledgment');
      }
      return { messageId: ack.messageId, roomId: ack.roomId };
    },
    async cancelReply(roomId, replyId) {
      await emitWithAck('cancelReply', { roomId, replyId }, 'cancelReply');
    },
    async decideApproval(roomId, replyId, toolCallId, approved, reason) {
      const payload = { roomId, replyId, toolCallId, approved, ...(reason ? { reason } : {}) };
      return toApprovalDecided(await emitWithAck('decideApproval', payload, 'decideApproval'));
    },
    setTyping(roomId, userId, isTyping) {
      socket.emit('typing', { roomId, userId, isTyping });
    },
    on(event, listener) {
      let listeners = roomListeners.get(event);
      if (!listeners) {
        listeners = new Set();
        roomListeners.set(event, listeners);
        // One socket.io handler per event: each payload is validated and reported once, however many listen.
        const untyped = socket as unknown as Socket;
        const name: string = event;
        untyped.on(name, (payload: unknown) => dispatch(event, payload));
      }
      const registered = listener as (payload: unknown) => void;
      listeners.add(registered);
      return () => void listeners.delete(registered);
    },
    onConnectionChange(listener) {
      connectionListeners.add(listener);
      return () => void connectionListeners.delete(listener);
    },
    disconnect() {
      rooms.clear();
      socket.disconnect();
    },
  };
}
