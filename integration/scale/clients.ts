import {
  type ClientToServerEvents,
  type MessageBroadcast,
  SOCKET_MESSAGE_TYPE,
  type ServerToClientEvents,
  type SocketAck,
} from '@parley/core';
import { type Socket, io } from 'socket.io-client';

/** A typed socket.io client. */
export type ScaleSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** How long any one expected event may take before the test fails with a clear message. */
export const EVENT_TIMEOUT_MS = 15_000;

/** Rejects with `what` when `promise` has not settled within `ms`. */
export async function within<T>(
  promise: Promise<T>,
  what: string,
  ms = EVENT_TIMEOUT_MS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A connected client that records every `messageBroadcast` it receives. */
export interface RoomClient {
  readonly socket: ScaleSocket;
  readonly entityId: string;
  /** Every broadcast received, in order. */
  readonly broadcasts: MessageBroadcast[];
  /** Resolves with the first broadcast (already received or to come) that matches. */
  broadcast(
    where: (broadcast: MessageBroadcast) => boolean,
    what: string,
  ): Promise<MessageBroadcast>;
  close(): void;
}

/** Connects over `transport`, waits for `connection_established` and joins `roomId` as `entityId`. */
export async function joinAs(
  url: string,
  transport: 'polling' | 'websocket',
  roomId: string,
  entityId: string,
): Promise<RoomClient> {
  const socket: ScaleSocket = io(url, {
    transports: [transport],
    reconnection: false,
    forceNew: true,
  });
  const broadcasts: MessageBroadcast[] = [];
  const waiters = new Set<() => void>();
  socket.on('messageBroadcast', (broadcast) => {
    broadcasts.push(broadcast);
    for (const waiter of waiters) waiter();
  });
  await within(
    new Promise<void>((resolve, reject) => {
      socket.once('connection_established', () => resolve());
      socket.once('connect_error', reject);
    }),
    `a ${transport} connection to ${url}`,
  );
  const ack = await within(
    socket.emitWithAck('message', {
      type: SOCKET_MESSAGE_TYPE.ROOM_JOINING,
      payload: { roomId, entityId },
    }),
    'the join acknowledgment',
  );
  if (ack.status !== 'ok') throw new Error(`join refused: ${JSON.stringify(ack)}`);
  return {
    socket,
    entityId,
    broadcasts,
    broadcast(where, what) {
      return within(
        new Promise<MessageBroadcast>((resolve) => {
          const check = () => {
            const found = broadcasts.find(where);
            if (!found) return false;
            waiters.delete(check);
            resolve(found);
            return true;
          };
          if (!check()) waiters.add(check);
        }),
        `${what} on ${entityId}`,
      );
    },
    close: () => void socket.disconnect(),
  };
}

/** Resolves with the next `event` payload on `socket` that matches `where`. */
export function nextEvent<E extends keyof ServerToClientEvents>(
  socket: ScaleSocket,
  event: E,
  where: (payload: Parameters<ServerToClientEvents[E]>[0]) => boolean,
  what: string,
): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return within(
    new Promise((resolve) => {
      const listener = (payload: Parameters<ServerToClientEvents[E]>[0]) => {
        if (!where(payload)) return;
        socket.off(event, listener as never);
        resolve(payload);
      };
      socket.on(event, listener as never);
    }),
    what,
  );
}

/** Sends a chat message into `roomId` and resolves with the acknowledged message id. */
export async function sendMessage(
  client: RoomClient,
  roomId: string,
  text: string,
): Promise<string> {
  const ack: SocketAck = await within(
    client.socket.emitWithAck('message', {
      type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
      payload: {
        senderId: client.entityId,
        senderName: client.entityId,
        message: text,
        roomId,
        source: 'scale-test',
      },
    }),
    'the send acknowledgment',
  );
  if (ack.status !== 'ok') throw new Error(`send refused: ${JSON.stringify(ack)}`);
  return String(ack.messageId);
}
