import {
  addAgentRequestSchema,
  addParticipantRequestSchema,
  channelHistoryPageQuerySchema,
  createChannelRequestSchema,
  dmChannelQuerySchema,
  entityIdSchema,
  listChannelsQuerySchema,
  parseOrThrow,
  updateChannelRequestSchema,
  uuidSchema,
} from '@parley/core';
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { success } from '../http/envelope';
import { readJsonBody } from '../http/read-body';
import type { MessageStore } from '../storage/message-store';
import type { ChannelService } from './channel-service';
import { withElizaNames } from './eliza-shapes';

const channelIdOf = (value: string | undefined) => parseOrThrow(uuidSchema, value, 'channelId');

/**
 * The channels API under `/api/messaging`, on the paths elizaOS's `@elizaos/api-client` calls, in Parley's
 * envelope: channels created, listed, read, changed and deleted; their participants and agents; their
 * history read (`{ messages, hasMore }`), cleared, or a message deleted; and elizaOS's DM channel lookup.
 */
export function channelRoutes(channels: ChannelService, messages: MessageStore): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.post('/api/messaging/channels', async (c) => {
    const body = await readJsonBody(c, createChannelRequestSchema, 'channel');
    return c.json(success(await channels.create(body)), 201);
  });

  routes.get('/api/messaging/channels', async (c) => {
    const query = parseOrThrow(listChannelsQuerySchema, c.req.query(), 'query');
    return c.json(success(await channels.list(query)));
  });

  routes.get('/api/messaging/dm-channel', async (c) => {
    const query = parseOrThrow(dmChannelQuerySchema, c.req.query(), 'query');
    return c.json(
      success(await channels.dmChannel(query.currentUserId, query.targetUserId, query.dmServerId)),
    );
  });

  routes.get('/api/messaging/channels/:channelId', async (c) => {
    return c.json(success(await channels.get(channelIdOf(c.req.param('channelId')))));
  });

  routes.get('/api/messaging/channels/:channelId/details', async (c) => {
    return c.json(success(await channels.get(channelIdOf(c.req.param('channelId')))));
  });

  routes.patch('/api/messaging/channels/:channelId', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const body = await readJsonBody(c, updateChannelRequestSchema, 'channel');
    return c.json(success(await channels.update(channelId, body)));
  });

  routes.delete('/api/messaging/channels/:channelId', async (c) => {
    return c.json(success(await channels.delete(channelIdOf(c.req.param('channelId')))));
  });

  routes.get('/api/messaging/channels/:channelId/messages', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const query = parseOrThrow(channelHistoryPageQuerySchema, c.req.query(), 'query');
    const { before, after, limit } = query;
    const page = await messages.list(channelId, {
      limit: limit + 1,
      before:
        before === undefined
          ? undefined
          : uuidSchema.safeParse(before).success
            ? { messageId: before }
            : new Date(before),
      after: after === undefined ? undefined : new Date(after),
    });
    return c.json(
      success({
        messages: page.slice(0, limit).map(withElizaNames),
        hasMore: page.length > limit,
      }),
    );
  });

  routes.delete('/api/messaging/channels/:channelId/messages', async (c) => {
    return c.json(success(await channels.clear(channelIdOf(c.req.param('channelId')))));
  });

  routes.delete('/api/messaging/channels/:channelId/messages/:messageId', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const messageId = parseOrThrow(uuidSchema, c.req.param('messageId'), 'messageId');
    return c.json(success(await channels.deleteMessage(channelId, messageId)));
  });

  routes.get('/api/messaging/channels/:channelId/participants', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    return c.json(success({ participants: await channels.listParticipants(channelId) }));
  });

  routes.post('/api/messaging/channels/:channelId/participants', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const { participantId } = await readJsonBody(c, addParticipantRequestSchema, 'participant');
    return c.json(success(await channels.addParticipant(channelId, participantId)), 201);
  });

  routes.delete('/api/messaging/channels/:channelId/participants/:participantId', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const participantId = parseOrThrow(
      entityIdSchema,
      c.req.param('participantId'),
      'participantId',
    );
    return c.json(success(await channels.removeParticipant(channelId, participantId)));
  });

  routes.post('/api/messaging/channels/:channelId/agents', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const { agentId } = await readJsonBody(c, addAgentRequestSchema, 'agent');
    return c.json(success(await channels.addAgent(channelId, agentId)), 201);
  });

  routes.delete('/api/messaging/channels/:channelId/agents/:agentId', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const agentId = parseOrThrow(uuidSchema, c.req.param('agentId'), 'agentId');
    return c.json(success(await channels.removeAgent(channelId, agentId)));
  });

  return routes;
}
