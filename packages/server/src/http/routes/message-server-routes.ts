import { DEFAULT_SERVER_ID, ParleyError, parseOrThrow, uuidSchema } from '@parley/core';
import { ChannelAccess, askerOf } from '../../identity/channel-access';
import { Hono } from 'hono';
import type { AgentManager } from '../../agents/agent-manager';
import type { ChannelStore } from '../../channels/channel-store';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';

/** Most channels `GET /api/messaging/message-servers/{id}/channels` answers (newest activity first). */
export const MESSAGE_SERVER_CHANNELS_LIMIT = 200;

/**
 * elizaOS's message servers. Parley has one, the default all-zero server every channel belongs to: it is listed,
 * it is the current one, every agent is in it, and its channels are all channels. Any other id is 404.
 */
export function messageServerRoutes(options: {
  agents: AgentManager;
  channels: Pick<ChannelStore, 'page'>;
  startedAt?: Date;
}): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const startedAt = (options.startedAt ?? new Date()).toISOString();
  const server = {
    id: DEFAULT_SERVER_ID,
    name: 'Parley',
    sourceType: 'parley',
    metadata: {},
    createdAt: startedAt,
    updatedAt: startedAt,
  };
  const serverIdOf = (value: string | undefined) => {
    const id = parseOrThrow(uuidSchema, value, 'messageServerId');
    if (id !== DEFAULT_SERVER_ID) {
      throw new ParleyError(
        'NOT_FOUND',
        `No message server ${id}: this server has one, ${DEFAULT_SERVER_ID}`,
      );
    }
    return id;
  };

  routes.get('/api/messaging/message-servers', (c) =>
    c.json(success({ messageServers: [server] })),
  );

  routes.get('/api/messaging/message-server/current', (c) =>
    c.json(success({ messageServerId: DEFAULT_SERVER_ID })),
  );

  routes.get('/api/messaging/message-servers/:messageServerId/agents', (c) => {
    const messageServerId = serverIdOf(c.req.param('messageServerId'));
    return c.json(
      success({ messageServerId, agents: options.agents.list().map((agent) => agent.id) }),
    );
  });

  routes.get('/api/messaging/agents/:agentId/message-servers', async (c) => {
    const agentId = parseOrThrow(uuidSchema, c.req.param('agentId'), 'agentId');
    await options.agents.details(agentId); // NOT_FOUND for an unknown agent
    return c.json(success({ agentId, messageServers: [DEFAULT_SERVER_ID] }));
  });

  routes.get('/api/messaging/message-servers/:messageServerId/channels', async (c) => {
    serverIdOf(c.req.param('messageServerId'));
    const who = askerOf(c);
    // A person's listing holds their channels only, as `GET /api/messaging/channels` does.
    const page = await options.channels.page({
      limit: MESSAGE_SERVER_CHANNELS_LIMIT,
      ...(ChannelAccess.isAdmin(who) ? {} : { memberId: who!.entityId }),
    });
    return c.json(success({ channels: page.channels }));
  });

  return routes;
}
