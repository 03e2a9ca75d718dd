import {
  type Channel,
  type ChannelList,
  type ChannelParticipant,
  type CreateChannelRequest,
  type ParticipantChange,
  type UpdateChannelRequest,
  apiSuccessSchema,
  channelClearedResultSchema,
  channelDeletedResultSchema,
  channelListSchema,
  channelParticipantsSchema,
  channelSchema,
  messageDeletedResultSchema,
  participantChangeSchema,
} from '@parley/core';
import type { z } from 'zod';
import type { HttpConfig } from './http-config';
import { type RequestDescription } from './build-request';
import { requestJson } from './request-json';

/** Per-call options (as the client's other methods take). */
interface Call {
  signal?: AbortSignal;
  timeout?: number;
}

/** Query of {@link ChannelMethods.listChannels}. */
export interface ListChannelsOptions extends Call {
  /** How many channels (1 to 100, default 50). */
  limit?: number;
  /** The previous page's `nextCursor`. */
  cursor?: string;
  /** Only channels this participant is in. */
  participantId?: string;
  /** Only channels this agent answers or takes part in. */
  agentId?: string;
}

/** The channels API: `/api/messaging/channels…`. Every method rejects with a `ParleyClientError`. */
export interface ChannelMethods {
  /** `GET /api/messaging/channels`: a page of channels, newest activity first, and the next page's cursor. */
  listChannels(options?: ListChannelsOptions): Promise<ChannelList>;
  /** `POST /api/messaging/channels`: `CONFLICT` when `id` is taken, `NOT_FOUND` for an unknown agent. */
  createChannel(channel: CreateChannelRequest, options?: Call): Promise<Channel>;
  /** `GET /api/messaging/channels/{channelId}`: `NOT_FOUND` for an unknown channel. */
  getChannel(channelId: string, options?: Call): Promise<Channel>;
  /** `PATCH /api/messaging/channels/{channelId}`: rename, change topic, metadata or agent. */
  updateChannel(channelId: string, changes: UpdateChannelRequest, options?: Call): Promise<Channel>;
  /** `DELETE /api/messaging/channels/{channelId}`: the channel and its messages (how many). */
  deleteChannel(channelId: string, options?: Call): Promise<{ deleted: true; messages: number }>;
  /** `DELETE /api/messaging/channels/{channelId}/messages`: clears the history (how many were deleted). */
  clearChannel(channelId: string, options?: Call): Promise<{ deleted: number }>;
  /** `DELETE /api/messaging/channels/{channelId}/messages/{messageId}`: the room hears `messageDeleted`. */
  deleteMessage(channelId: string, messageId: string, options?: Call): Promise<{ deleted: true }>;
  /** `GET /api/messaging/channels/{channelId}/participants`. */
  listParticipants(channelId: string, options?: Call): Promise<ChannelParticipant[]>;
  /** `POST /api/messaging/channels/{channelId}/participants`: `changed: false` when already in. */
  addParticipant(
    channelId: string,
    participantId: string,
    options?: Call,
  ): Promise<ParticipantChange>;
  /** `DELETE /api/messaging/channels/{channelId}/participants/{participantId}`: `NOT_FOUND` when not in. */
  removeParticipant(
    channelId: string,
    participantId: string,
    options?: Call,
  ): Promise<ParticipantChange>;
  /** `POST /api/messaging/channels/{channelId}/agents`: the agent joins (and answers, if none did). */
  addAgentToChannel(channelId: string, agentId: string, options?: Call): Promise<ParticipantChange>;
  /** `DELETE /api/messaging/channels/{channelId}/agents/{agentId}`: the agent leaves. */
  removeAgentFromChannel(
    channelId: string,
    agentId: string,
    options?: Call,
  ): Promise<ParticipantChange>;
}

const segment = encodeURIComponent;
const channelsPath = '/api/messaging/channels';
const channelPath = (channelId: string) => `${channelsPath}/${segment(channelId)}`;

/** The {@link ChannelMethods} of a client with `config`. */
export function createChannelMethods(config: HttpConfig): ChannelMethods {
  const data = <T extends z.ZodType>(
    description: RequestDescription,
    schema: T,
  ): Promise<z.output<T>> =>
    requestJson(config, description, apiSuccessSchema(schema)).then(
      (body) => (body as { data: z.output<T> }).data,
    );
  return {
    listChannels: ({ limit, cursor, participantId, agentId, ...call } = {}) =>
      data(
        { path: channelsPath, query: { limit, cursor, participantId, agentId }, ...call },
        channelListSchema,
      ),
    createChannel: (channel, call) =>
      data({ method: 'POST', path: channelsPath, body: channel, ...call }, channelSchema),
    getChannel: (channelId, call) => data({ path: channelPath(channelId), ...call }, channelSchema),
    updateChannel: (channelId, changes, call) =>
      data(
        { method: 'PATCH', path: channelPath(channelId), body: changes, ...call },
        channelSchema,
      ),
    deleteChannel: (channelId, call) =>
      data(
        { method: 'DELETE', path: channelPath(channelId), ...call },
        channelDeletedResultSchema,
      ).then(({ deleted, messages }) => ({ deleted, messages })),
    clearChannel: (channelId, call) =>
      data(
        { method: 'DELETE', path: `${channelPath(channelId)}/messages`, ...call },
        channelClearedResultSchema,
      ).then(({ deleted }) => ({ deleted })),
    deleteMessage: (channelId, messageId, call) =>
      data(
        {
          method: 'DELETE',
          path: `${channelPath(channelId)}/messages/${segment(messageId)}`,
          ...call,
        },
        messageDeletedResultSchema,
      ).then(({ deleted }) => ({ deleted })),
    listParticipants: (channelId, call) =>
      data(
        { path: `${channelPath(channelId)}/participants`, ...call },
        channelParticipantsSchema,
      ).then(({ participants }) => participants),
    addParticipant: (channelId, participantId, call) =>
      data(
        {
          method: 'POST',
          path: `${channelPath(channelId)}/participants`,
          body: { participantId },
          ...call,
        },
        participantChangeSchema,
      ),
    removeParticipant: (channelId, participantId, call) =>
      data(
        {
          method: 'DELETE',
          path: `${channelPath(channelId)}/participants/${segment(participantId)}`,
          ...call,
        },
        participantChangeSchema,
      ),
    addAgentToChannel: (channelId, agentId, call) =>
      data(
        { method: 'POST', path: `${channelPath(channelId)}/agents`, body: { agentId }, ...call },
        participantChangeSchema,
      ),
    removeAgentFromChannel: (channelId, agentId, call) =>
      data(
        {
          method: 'DELETE',
          path: `${channelPath(channelId)}/agents/${segment(agentId)}`,
          ...call,
        },
        participantChangeSchema,
      ),
  };
}
