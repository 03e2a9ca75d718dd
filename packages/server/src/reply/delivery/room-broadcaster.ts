import type { ServerToClientEventName, ServerToClientEvents } from '@parley/core';

/**
 * The one place stored messages and live reply events leave the messaging core for clients. The socket layer
 * implements it with socket.io rooms; the core knows nothing of sockets.
 */
export interface RoomBroadcaster {
  emit<E extends ServerToClientEventName>(
    roomId: string,
    event: E,
    ...payload: Parameters<ServerToClientEvents[E]>
  ): void;
}

/** A broadcaster that delivers nothing, for a server without a socket. */
export const silentBroadcaster: RoomBroadcaster = { emit: () => undefined };
