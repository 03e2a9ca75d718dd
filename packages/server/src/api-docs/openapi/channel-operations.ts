import {
  addAgentRequestSchema,
  addParticipantRequestSchema,
  apiSuccessSchema,
  channelClearedResultSchema,
  channelDeletedResultSchema,
  channelHistoryPageQuerySchema,
  channelListSchema,
  channelParticipantsSchema,
  channelSchema,
  createChannelRequestSchema,
  dmChannelQuerySchema,
  entityIdSchema,
  listChannelsQuerySchema,
  listedMessageSchema,
  messageDeletedResultSchema,
  participantChangeSchema,
  updateChannelRequestSchema,
  uuidSchema,
} from '@parley/core';
import { z } from 'zod';
import type { DocumentedOperation } from './built-in-operations';

const channelId = { channelId: uuidSchema };
const channel = (description: string) => ({ description, json: apiSuccessSchema(channelSchema) });
const change = (description: string) => ({
  description,
  json: apiSuccessSchema(participantChangeSchema),
});
const base = { tag: 'channels', auth: ['apiKey'] as const };

/**
 * The channels API (`channels/channel-routes.ts`): on the paths elizaOS's `@elizaos/api-client` calls, in
 * Parley's envelope. Every change is heard on the socket (see the AsyncAPI document).
 */
export const CHANNEL_OPERATIONS: readonly DocumentedOperation[] = [
  {
    ...base,
    method: 'post',
    path: '/api/messaging/channels',
    operationId: 'createChannel',
    summary: 'Create a channel',
    description:
      "A group or DM channel with a name, its first participants (`participants`, or elizaOS's " +
      '`participantCentralUserIds`), an answering agent, a topic and metadata. Every socket hears ' +
      '`channelCreated`. The message server, when named, must be the default one (the all-zero id).',
    body: createChannelRequestSchema,
    responses: { 201: channel('The channel.') },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/messaging/channels',
    operationId: 'listChannels',
    summary: 'List channels, newest activity first',
    description:
      'A page of at most `limit` channels (100), ordered by their last message, else their creation; page on ' +
      'with `cursor` set to `nextCursor`. Channels created on first use are listed, named from their id.',
    query: listChannelsQuerySchema,
    responses: { 200: { description: 'A page.', json: apiSuccessSchema(channelListSchema) } },
    errors: ['BAD_REQUEST', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/messaging/dm-channel',
    operationId: 'getOrCreateDmChannel',
    summary: 'The DM channel of two participants, created on first ask',
    description: "elizaOS's DM lookup: the same channel whichever of the two asks.",
    query: dmChannelQuerySchema,
    responses: { 200: channel('The DM channel.') },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/messaging/channels/:channelId',
    operationId: 'getChannel',
    summary: 'A channel',
    pathParams: channelId,
    responses: { 200: channel('The channel.') },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/messaging/channels/:channelId/details',
    operationId: 'getChannelDetails',
    summary: "A channel (elizaOS's path)",
    pathParams: channelId,
    responses: { 200: channel('The channel.') },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'patch',
    path: '/api/messaging/channels/:channelId',
    operationId: 'updateChannel',
    summary: 'Rename or change a channel',
    description:
      'Changes name, topic, metadata (replaced whole) or agent; `participantCentralUserIds` (elizaOS) replaces ' +
      'the people in it. Every socket hears `channelUpdated`; of two changes, the later `updatedAt` is the ' +
      "channel's state.",
    pathParams: channelId,
    body: updateChannelRequestSchema,
    responses: { 200: channel('The channel as changed.') },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/messaging/channels/:channelId',
    operationId: 'deleteChannel',
    summary: 'Delete a channel and its messages',
    description:
      "Cancels the channel's running replies (in every process), deletes its messages in batches of 1,000 " +
      'rows, then the channel. Every socket hears `channelDeleted`.',
    pathParams: channelId,
    responses: {
      200: { description: 'Deleted.', json: apiSuccessSchema(channelDeletedResultSchema) },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/messaging/channels/:channelId/messages',
    operationId: 'listChannelMessages',
    summary: "A channel's history, newest first",
    description:
      'Page back with `before` set to the id of the oldest message received (the exact cursor), or an instant ' +
      '(epoch milliseconds or ISO 8601); `after` keeps messages after an instant. Each message carries ' +
      "elizaOS's camel-case names beside Parley's. An unused channel id has an empty history.",
    pathParams: channelId,
    query: channelHistoryPageQuerySchema,
    responses: {
      200: {
        description: 'Messages, newest first.',
        json: apiSuccessSchema(
          z.object({ messages: z.array(listedMessageSchema), hasMore: z.boolean() }),
        ),
      },
    },
    errors: ['BAD_REQUEST', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/messaging/channels/:channelId/messages',
    operationId: 'clearChannelHistory',
    summary: "Clear a channel's history",
    description:
      "Deletes its messages in batches of 1,000 rows; the channel's room hears `channelCleared`.",
    pathParams: channelId,
    responses: {
      200: { description: 'Cleared.', json: apiSuccessSchema(channelClearedResultSchema) },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/messaging/channels/:channelId/messages/:messageId',
    operationId: 'deleteChannelMessage',
    summary: 'Delete one message',
    description: "The channel's room hears `messageDeleted`.",
    pathParams: { ...channelId, messageId: uuidSchema },
    responses: {
      200: { description: 'Deleted.', json: apiSuccessSchema(messageDeletedResultSchema) },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/messaging/channels/:channelId/participants',
    operationId: 'getChannelParticipants',
    summary: 'Who is in a channel',
    pathParams: channelId,
    responses: {
      200: { description: 'Its participants.', json: apiSuccessSchema(channelParticipantsSchema) },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'post',
    path: '/api/messaging/channels/:channelId/participants',
    operationId: 'addChannelParticipant',
    summary: 'Add a person to a channel',
    description:
      '`changed: false` when already in. A channel holds at most 1,000 participants (409 beyond).',
    pathParams: channelId,
    body: addParticipantRequestSchema,
    responses: { 201: change('Added, or already in.') },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/messaging/channels/:channelId/participants/:participantId',
    operationId: 'removeChannelParticipant',
    summary: 'Remove someone from a channel',
    pathParams: { ...channelId, participantId: entityIdSchema },
    responses: { 200: change('Removed.') },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'post',
    path: '/api/messaging/channels/:channelId/agents',
    operationId: 'addAgentToChannel',
    summary: 'An agent joins a channel',
    description:
      "It becomes a participant, and the channel's answering agent when the channel had none.",
    pathParams: channelId,
    body: addAgentRequestSchema,
    responses: { 201: change('Joined, or already in.') },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/messaging/channels/:channelId/agents/:agentId',
    operationId: 'removeAgentFromChannel',
    summary: 'An agent leaves a channel',
    description: 'When it answered in the channel, the default agent does from now on.',
    pathParams: { ...channelId, agentId: uuidSchema },
    responses: { 200: change('Left.') },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
];
