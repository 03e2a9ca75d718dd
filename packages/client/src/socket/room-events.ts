import { SERVER_EVENT_SCHEMAS, type ServerToClientEvents } from '@parley/core';
import type { z } from 'zod';

const { connection_established: _connection, ...roomEvents } = SERVER_EVENT_SCHEMAS;

/** Server events that belong to a room (all but `connection_established`), each with its core schema. */
export const ROOM_EVENT_SCHEMAS = roomEvents satisfies Record<
  string,
  // Channel events (`channelCreated`…) name no room: every connected socket hears them.
  z.ZodType<{ roomId?: string | undefined } | { channelId: string } | { id: string }>
>;

/** The name of a server event a client receives for the rooms it joined. */
export type RoomEventName = keyof typeof ROOM_EVENT_SCHEMAS;

/** The listener of a room event, typed by core's `ServerToClientEvents`. */
export type RoomEventListener<E extends RoomEventName> = ServerToClientEvents[E];
