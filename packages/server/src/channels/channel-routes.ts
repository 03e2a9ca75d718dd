import {
  addAgentRequestSchema,
  addParticipantRequestSchema,
  channelHistoryPageQuerySchema,
  createChannelRequestSchema,
  dmChannelQuerySchema,
  entityIdSchema,
  listChannelsQuerySchema,
  ParleyError,
  parseOrThrow,
  updateChannelRequestSchema,
  uuidSchema,
} from '@parley/core';
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { success } from '../http/envelope';
import { readJsonBody } from '../http/read-body';
import type { MessageStore } from '../storage/message-store';
import { type ChannelAccess, askerOf } from '../identity/channel-access';
import type { ChannelService } from './channel-service';
import { withElizaNames } from './eliza-shapes';

const channelIdOf = (value: string | undefined) => parseOrThrow(uuidSchema, value, 'channelId');

/**
 * The channels API under `/api/messaging`, on the paths elizaOS's `@elizaos/api-client` calls, in Parley's
 * envelope: channels created, listed, read, changed and deleted; their participants and agents; their
 * history read (`{ messages, hasMore }`), cleared, or a message deleted; and elizaOS's DM channel lookup.
 */
export function channelRoutes(
  channels: ChannelService,
  messages: MessageStore,
  access: ChannelAccess,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.post('/api/messaging/channels', async (c) => {
    const body = await readJsonBody(c, createChannelRequestSchema, 'channel');
    const who = askerOf(c);
    // The creator owns the channel; a person naming its id claims it first (an id someone else claimed by
    // posting into it, or an existing channel, is refused).
    if (body.id !== undefined && who !== undefined && who.kind !== 'admin') {
      await access.assertPost(who, body.id);
    }
    const created = await channels.create(body);
    await access.recordOwner(who, created.id);
    // The people its creator put in it may see it.
    for (const id of new Set([
      ...(body.participants ?? []),
      ...(body.participantCentralUserIds ?? []),
    ])) {
      await access.addMember(created.id, id);
    }
    return c.json(success(created), 201);
  });

  routes.get('/api/messaging/channels', async (c) => {
    const query = parseOrThrow(listChannelsQuerySchema, c.req.query(), 'query');
    return c.json(
      success(await channels.list({ ...query, memberId: access.listScope(askerOf(c)) })),
    );
  });

  routes.get('/api/messaging/dm-channel', async (c) => {
    const query = parseOrThrow(dmChannelQuerySchema, c.req.query(), 'query');
    const who = askerOf(c);
    // A person asks for their own DMs only: currentUserId must be them.
    if (who !== undefined && who.kind !== 'admin' && query.currentUserId !== who.entityId) {
      throw new ParleyError('FORBIDDEN', 'currentUserId must be your own entity id');
    }
    const channel = await channels.dmChannel(
      query.currentUserId,
      query.targetUserId,
      query.dmServerId,
    );
    await access.assertDm(who, channel.id, query.targetUserId);
    return c.json(success(channel));
  });

  routes.get('/api/messaging/channels/:channelId', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    await access.assertRead(askerOf(c), channelId);
    return c.json(success(await channels.get(channelId)));
  });

  routes.get('/api/messaging/channels/:channelId/details', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    await access.assertRead(askerOf(c), channelId);
    return c.json(success(await channels.get(channelId)));
  });

  routes.patch('/api/messaging/channels/:channelId', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const body = await readJsonBody(c, updateChannelRequestSchema, 'channel');
    const who = askerOf(c);
    // Members rename; who is in it and which agent answers are the owner's to change.
    if (body.participantCentralUserIds !== undefined || body.agentId !== undefined) {
      await access.assertOwner(who, channelId);
    } else await access.assertMember(who, channelId);
    const updated = await channels.update(channelId, body);
    for (const id of body.participantCentralUserIds ?? []) await access.addMember(channelId, id);
    return c.json(success(updated));
  });

  routes.delete('/api/messaging/channels/:channelId', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    await access.assertOwner(askerOf(c), channelId);
    return c.json(success(await channels.delete(channelId)));
  });

  routes.get('/api/messaging/channels/:channelId/messages', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const query = parseOrThrow(channelHistoryPageQuerySchema, c.req.query(), 'query');
    await access.assertRead(askerOf(c), channelId);
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
    const channelId = channelIdOf(c.req.param('channelId'));
    await access.assertOwner(askerOf(c), channelId);
    return c.json(success(await channels.clear(channelId)));
  });

  routes.delete('/api/messaging/channels/:channelId/messages/:messageId', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const messageId = parseOrThrow(uuidSchema, c.req.param('messageId'), 'messageId');
    const who = askerOf(c);
    await access.assertMember(who, channelId);
    // A member deletes their own messages; the owner and admins any.
    if (who !== undefined && who.kind !== 'admin') {
      const message = await messages.get(messageId);
      if (message?.author_id !== who.entityId) await access.assertOwner(who, channelId);
    }
    return c.json(success(await channels.deleteMessage(channelId, messageId)));
  });

  routes.get('/api/messaging/channels/:channelId/participants', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    await access.assertRead(askerOf(c), channelId);
    return c.json(success({ participants: await channels.listParticipants(channelId) }));
  });

  routes.post('/api/messaging/channels/:channelId/participants', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const { participantId } = await readJsonBody(c, addParticipantRequestSchema, 'participant');
    await access.assertOwner(askerOf(c), channelId);
    const added = await channels.addParticipant(channelId, participantId);
    // Added by its owner (or an admin): the person may now see the channel.
    await access.addMember(channelId, participantId);
    return c.json(success(added), 201);
  });

  routes.delete('/api/messaging/channels/:channelId/participants/:participantId', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const participantId = parseOrThrow(
      entityIdSchema,
      c.req.param('participantId'),
      'participantId',
    );
    const who = askerOf(c);
    // Leaving is a member's own act; removing someone else is the owner's.
    if (who !== undefined && who.kind !== 'admin' && participantId === who.entityId) {
      await access.assertMember(who, channelId);
    } else await access.assertOwner(who, channelId);
    const removed = await channels.removeParticipant(channelId, participantId);
    await access.removeMember(channelId, participantId);
    return c.json(success(removed));
  });

  routes.post('/api/messaging/channels/:channelId/agents', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const { agentId } = await readJsonBody(c, addAgentRequestSchema, 'agent');
    await access.assertOwner(askerOf(c), channelId);
    return c.json(success(await channels.addAgent(channelId, agentId)), 201);
  });

  routes.delete('/api/messaging/channels/:channelId/agents/:agentId', async (c) => {
    const channelId = channelIdOf(c.req.param('channelId'));
    const agentId = parseOrThrow(uuidSchema, c.req.param('agentId'), 'agentId');
    await access.assertOwner(askerOf(c), channelId);
    return c.json(success(await channels.removeAgent(channelId, agentId)));
  });

  return routes;
}
