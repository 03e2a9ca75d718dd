import type { RoomBroadcaster } from '../messaging/room-broadcaster';
import type { ParleySocketServer } from './create-socket-server';

/** Delivers messaging events to every socket that joined the room, through socket.io's adapter. */
export function createSocketBroadcaster(io: ParleySocketServer): RoomBroadcaster {
  return {
    emit(roomId, event, ...payload) {
      io.to(roomId).emit(event, ...payload);
    },
  };
}
