import type { ClientToServerEvents, ServerToClientEvents, SocketAck } from '@parley/core';
import { SOCKET_MESSAGE_TYPE } from '@parley/core';
import { io, type Socket } from 'socket.io-client';

/** A typed socket.io client. */
export type TestSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** Connects a socket.io-client 4 client over the given transport and waits for `connection_established`. */
export async function connectClient(
  url: string,
  transport: 'polling' | 'websocket',
  options: { auth?: Record<string, string> } = {},
): Promise<TestSocket> {
  const socket: TestSocket = io(url, {
    transports: [transport],
    reconnection: false,
    forceNew: true,
    auth: options.auth,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connection_established', () => resolve());
    socket.once('connect_error', reject);
  });
  return socket;
}

/** Resolves with the next payload of `event`, optionally the first that matches `where`. */
export function nextEvent<E extends keyof ServerToClientEvents>(
  socket: TestSocket,
  event: E,
  where: (payload: Parameters<ServerToClientEvents[E]>[0]) => boolean = () => true,
): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return new Promise((resolve) => {
    const listener = (payload: Parameters<ServerToClientEvents[E]>[0]) => {
      if (!where(payload)) return;
      socket.off(event, listener as never);
      resolve(payload);
    };
    socket.on(event, listener as never);
  });
}

/** Joins a room and waits for the acknowledgment. */
export async function joinRoom(
  socket: TestSocket,
  roomId: string,
  entityId: string,
): Promise<SocketAck> {
  const ack: SocketAck = await socket.emitWithAck('message', {
    type: SOCKET_MESSAGE_TYPE.ROOM_JOINING,
    payload: { roomId, entityId },
  });
  return ack;
}
