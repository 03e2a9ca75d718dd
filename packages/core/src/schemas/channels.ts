import { z } from 'zod';
import { DEFAULT_SERVER_ID } from '../constants';
import { storedMessageSchema } from './agent-message';
import {
  entityIdSchema,
  instantSchema,
  isStorableDate,
  labelSchema,
  metadataSchema,
  storableString,
  uuidSchema,
} from './common';

/** Most participants one channel holds (its participant list is answered whole). */
export const MAX_CHANNEL_PARTICIPANTS = 1000;
/** Longest channel name, in characters. */
export const MAX_CHANNEL_NAME_LENGTH = 256;
/** Longest channel topic, in characters. */
export const MAX_CHANNEL_TOPIC_LENGTH = 4096;

/** A channel's type: a group conversation, or a direct conversation between two participants. */
export const channelTypeSchema = z.enum(['GROUP', 'DM']);

/** @see channelTypeSchema */
export type ChannelType = z.infer<typeof channelTypeSchema>;

/**
 * A channel as the API answers it. A channel that exists only because messages were posted to it has a name
 * derived from its id until it is renamed. `lastMessageAt` is when its newest message was stored (null without
 * messages); listings order by it (else `createdAt`), newest first.
 */
export const channelSchema = z.object({
  id: z.string(),
  /** Always the default message server (the all-zero id). */
  messageServerId: z.string(),
  name: z.string(),
  type: channelTypeSchema,
  /** The agent that answers in the channel when a message names none (null: the default agent). */
  agentId: z.string().nullable(),
  topic: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastMessageAt: z.string().nullable(),
});

/** @see channelSchema */
export type Channel = z.infer<typeof channelSchema>;

const participantIdsSchema = z.array(entityIdSchema).max(MAX_CHANNEL_PARTICIPANTS);
const channelNameSchema = labelSchema.max(MAX_CHANNEL_NAME_LENGTH);
const topicSchema = storableString().max(MAX_CHANNEL_TOPIC_LENGTH);
/** elizaOS's clients name the message server (`message_server_id`, `messageServerId`, `serverId`). */
const messageServerIdSchema = uuidSchema.optional();

/**
 * Body of `POST /api/messaging/channels`. elizaOS's clients send `participantCentralUserIds` for
 * `participants` and the message server as `message_server_id`; both are accepted (the server must be the
 * default one). With `id`, the channel gets that id (409 when it exists).
 */
export const createChannelRequestSchema = z.object({
  id: uuidSchema.optional(),
  name: channelNameSchema,
  type: channelTypeSchema.default('GROUP'),
  participants: participantIdsSchema.optional(),
  participantCentralUserIds: participantIdsSchema.optional(),
  agentId: uuidSchema.optional(),
  topic: topicSchema.optional(),
  metadata: metadataSchema.optional(),
  message_server_id: messageServerIdSchema,
  messageServerId: messageServerIdSchema,
  serverId: messageServerIdSchema,
});

/** @see createChannelRequestSchema */
export type CreateChannelRequest = z.input<typeof createChannelRequestSchema>;

/**
 * Body of `PATCH /api/messaging/channels/{channelId}`: the fields to change (at least one). `metadata` replaces
 * the channel's metadata; `topic: null` and `agentId: null` clear them. `participantCentralUserIds` (elizaOS)
 * replaces the people in the channel (agents stay).
 */
export const updateChannelRequestSchema = z
  .object({
    name: channelNameSchema.optional(),
    topic: topicSchema.nullable().optional(),
    metadata: metadataSchema.optional(),
    agentId: uuidSchema.nullable().optional(),
    participantCentralUserIds: participantIdsSchema.optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), {
    message:
      'must change at least one of name, topic, metadata, agentId, participantCentralUserIds',
  });

/** @see updateChannelRequestSchema */
export type UpdateChannelRequest = z.input<typeof updateChannelRequestSchema>;

/** Query of `GET /api/messaging/channels`. */
export const listChannelsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  /** `nextCursor` of the previous page. */
  cursor: storableString().min(1).max(200).optional(),
  /** Only channels this participant is in. */
  participantId: entityIdSchema.optional(),
  /** Only channels this agent answers in or takes part in. */
  agentId: uuidSchema.optional(),
});

/** @see listChannelsQuerySchema */
export type ListChannelsQuery = z.input<typeof listChannelsQuerySchema>;

/** `data` of `GET /api/messaging/channels`: a page of channels, newest activity first. */
export const channelListSchema = z.object({
  channels: z.array(channelSchema),
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});

/** @see channelListSchema */
export type ChannelList = z.infer<typeof channelListSchema>;

/** Someone in a channel (elizaOS's `ChannelParticipant`, with `role`). */
export const channelParticipantSchema = z.object({
  /** The participant's id (as `userId`). */
  id: z.string(),
  channelId: z.string(),
  userId: z.string(),
  role: z.enum(['member', 'agent']),
  joinedAt: z.string(),
});

/** @see channelParticipantSchema */
export type ChannelParticipant = z.infer<typeof channelParticipantSchema>;

/** `data` of `GET /api/messaging/channels/{channelId}/participants`. */
export const channelParticipantsSchema = z.object({
  participants: z.array(channelParticipantSchema),
});

/** Body of `POST /api/messaging/channels/{channelId}/participants`. */
export const addParticipantRequestSchema = z.object({ participantId: entityIdSchema });

/** Body of `POST /api/messaging/channels/{channelId}/agents`. */
export const addAgentRequestSchema = z.object({ agentId: uuidSchema });

/**
 * `data` of the participant and agent routes: whether the call changed anything (`changed: false` when the
 * participant was already in, or not in), and `success: true` (what elizaOS's client types promise).
 */
export const participantChangeSchema = z.object({
  success: z.literal(true),
  channelId: z.string(),
  participantId: z.string(),
  changed: z.boolean(),
});

/** @see participantChangeSchema */
export type ParticipantChange = z.infer<typeof participantChangeSchema>;

/** `data` of `DELETE /api/messaging/channels/{channelId}`. */
export const channelDeletedResultSchema = z.object({
  success: z.literal(true),
  deleted: z.literal(true),
  /** How many of its messages were deleted. */
  messages: z.number().int().nonnegative(),
});

/** `data` of `DELETE /api/messaging/channels/{channelId}/messages`. */
export const channelClearedResultSchema = z.object({
  success: z.literal(true),
  deleted: z.number().int().nonnegative(),
});

/** `data` of `DELETE /api/messaging/channels/{channelId}/messages/{messageId}`. */
export const messageDeletedResultSchema = z.object({
  success: z.literal(true),
  deleted: z.literal(true),
});

/** Most messages one history page returns; a larger `limit` is clamped to it, as elizaOS clamps. */
export const MAX_HISTORY_PAGE = 200;

/**
 * A history bound: an epoch in milliseconds (elizaOS's clients send `Date.now()`-style numbers), an ISO 8601
 * instant, or a date string as JavaScript prints one (`String(new Date())`: what elizaOS's client sends for a
 * `Date`), read as an ISO instant. Bounded in length; a date outside the years 1 to 9999 is refused.
 */
export const historyInstantSchema = z.union([
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be epoch milliseconds or an ISO 8601 date-time')
    .transform((value) => new Date(Number(value)).toISOString()),
  instantSchema,
  z
    .string()
    .max(100)
    .regex(/^[A-Za-z]{3},? /, 'must be epoch milliseconds, an ISO 8601 date-time or a date string')
    .transform((value, context) => {
      const date = new Date(value);
      if (!isStorableDate(date)) {
        context.addIssue({ code: 'custom', message: 'must be a date in the years 1 to 9999' });
        return z.NEVER;
      }
      return date.toISOString();
    }),
]);

/**
 * Query of `GET /api/messaging/channels/{channelId}/messages`. `before`: a message id (the oldest message of the
 * previous page, the exact cursor) or an instant (epoch ms or ISO); `after`: an instant.
 */
export const channelHistoryPageQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .transform((limit) => Math.min(limit, MAX_HISTORY_PAGE))
    .default(50),
  before: z.union([uuidSchema, historyInstantSchema]).optional(),
  after: historyInstantSchema.optional(),
});

/**
 * A listed message: the stored message with elizaOS's camel-case names beside Parley's (`channelId`,
 * `authorId`, `createdAt`, `updatedAt`, `sourceType`, `inReplyToRootMessageId`, `rawMessage`).
 */
export const listedMessageSchema = storedMessageSchema.extend({
  channelId: z.string(),
  authorId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  sourceType: z.string(),
  inReplyToRootMessageId: z.string().optional(),
  rawMessage: z.unknown().optional(),
});

/** `data` of `GET /api/messaging/channels/{channelId}/messages`. */
export const channelHistoryPageSchema = z.object({
  messages: z.array(storedMessageSchema),
  /** Whether older messages remain (page on with `before` set to the last message's id). */
  hasMore: z.boolean(),
});

/** @see channelHistoryPageSchema */
export type ChannelHistoryPage = z.infer<typeof channelHistoryPageSchema>;

/** Query of `GET /api/messaging/dm-channel` (elizaOS's `getOrCreateDmChannel`). */
export const dmChannelQuerySchema = z.object({
  currentUserId: entityIdSchema,
  targetUserId: entityIdSchema,
  dmServerId: uuidSchema.default(DEFAULT_SERVER_ID),
});

/** `channelDeleted` (to every socket). */
export const channelDeletedEventSchema = z.object({ channelId: z.string() });
/** `channelCleared` (to the channel's room). */
export const channelClearedEventSchema = z.object({ channelId: z.string() });
/** `messageDeleted` (to the channel's room). */
export const messageDeletedEventSchema = z.object({
  channelId: z.string(),
  messageId: z.string(),
});
