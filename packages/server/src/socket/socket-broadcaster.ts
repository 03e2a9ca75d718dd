import { Adapter } from 'socket.io-adapter';
import type { RoomBroadcaster } from '../reply/delivery/room-broadcaster';
import type { ParleySocketServer } from './create-socket-server';

/**
 * Delivers messaging events to every socket that joined the room, through socket.io's adapter. With the
 * in-memory adapter, a room without local members is skipped before socket.io encodes the packet (it encodes
 * first and looks for recipients after: 6% of the server's CPU under a submit load with nobody listening). A
 * cluster adapter may have members elsewhere, so every event goes to it.
 */
export function createSocketBroadcaster(io: ParleySocketServer): RoomBroadcaster {
  return {
    emit(roomId, event, ...payload) {
      // Looked up per event: a cluster adapter may be installed after the server is composed.
      const adapter = io.of('/').adapter;
      if (adapter.constructor === Adapter && !adapter.rooms.has(roomId)) return;
      io.to(roomId).emit(event, ...payload);
    },
  };
}
