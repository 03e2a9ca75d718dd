import {
  type ServerToClientEvents,
  controlMessageSchema,
  messageBroadcastSchema,
  messageCompleteSchema,
  messageErrorSchema,
  messageStreamChunkSchema,
  presenceEventSchema,
  userTypingSchema,
} from '@parley/core';
import type { z } from 'zod';

/** Server events that belong to a room, each with the core schema its payload is checked against. */
export const ROOM_EVENT_SCHEMAS = {
  messageBroadcast: messageBroadcastSchema,
  messageStreamChunk: messageStreamChunkSchema,
  messageComplete: messageCompleteSchema,
  messageError: messageErrorSchema,
  userJoined: presenceEventSchema,
  userLeft: presenceEventSchema,
  userTyping: userTypingSchema,
  controlMessage: controlMessageSchema,
} as const satisfies Record<string, z.ZodType<{ roomId?: string | undefined }>>;

/** The name of a server event a client receives for the rooms it joined. */
export type RoomEventName = keyof typeof ROOM_EVENT_SCHEMAS;

/** The listener of a room event, typed by core's `ServerToClientEvents`. */
export type RoomEventListener<E extends RoomEventName> = ServerToClientEvents[E];
