import type { z } from 'zod';
import {
  roomApprovalRequestSchema,
  connectionEstablishedSchema,
  controlMessageSchema,
  messageBroadcastSchema,
  messageCompleteSchema,
  messageErrorSchema,
  messageStreamChunkSchema,
  presenceEventSchema,
  toolCallSchema,
  toolResultSchema,
  userTypingSchema,
} from '../schemas/socket-payloads';
import type { ServerToClientEvents } from './events';
import {
  channelClearedEventSchema,
  channelDeletedEventSchema,
  channelSchema,
  messageDeletedEventSchema,
} from '../schemas/channels';

/**
 * The schema of each event the server emits, by name: what a client checks a payload against and what the
 * AsyncAPI document describes. A new event in {@link ServerToClientEvents} is a type error here until it has one.
 */
export const SERVER_EVENT_SCHEMAS = {
  connection_established: connectionEstablishedSchema,
  messageBroadcast: messageBroadcastSchema,
  messageStreamChunk: messageStreamChunkSchema,
  toolCall: toolCallSchema,
  toolResult: toolResultSchema,
  approvalRequest: roomApprovalRequestSchema,
  messageComplete: messageCompleteSchema,
  messageError: messageErrorSchema,
  controlMessage: controlMessageSchema,
  userJoined: presenceEventSchema,
  userLeft: presenceEventSchema,
  userTyping: userTypingSchema,
  channelCreated: channelSchema,
  channelUpdated: channelSchema,
  channelDeleted: channelDeletedEventSchema,
  messageDeleted: messageDeletedEventSchema,
  channelCleared: channelClearedEventSchema,
} as const satisfies Record<keyof ServerToClientEvents, z.ZodType>;
