/**
 * @module @parley/client/socket
 * The event socket over socket.io 4: rooms, typed and room-filtered events, re-joining after reconnects.
 */
export { connectSocket } from './connect-socket';
export type { ConnectSocketOptions, ParleySocket, SocketMessage } from './connect-socket';
export type { ConnectionState } from './connection-state';
export { ROOM_EVENT_SCHEMAS } from './room-events';
export type { RoomEventListener, RoomEventName } from './room-events';
export { ParleyClientError } from '../client-error';
