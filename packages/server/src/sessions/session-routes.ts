import {
  ParleyError,
  createChannelRequestSchema,
  parseOrThrow,
  type StoredMessage,
  uuidSchema,
} from '@parley/core';
import {
  ChannelAccess,
  askerOf,
  assertPostOnRequest,
  assertReadOnRequest,
  postingEntity,
  recordOwnerOnRequest,
} from '../identity/channel-access';
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { AgentManager } from '../agents/agent-manager';
import type { ChannelService } from '../channels/channel-service';
import type { AppEnv } from '../http/app-env';
import { success } from '../http/envelope';
import { readJsonBody } from '../http/read-body';
import { sendReplyEvents, startOf, waitForEnd } from '../http/reply-events';
import { toEventId } from '../http/reply-event-id';
import { createSseStream } from '../http/sse-stream';
import type { MessagingService } from '../messaging/messaging-service';
import type { ReplyFinalPart } from '../reply/parts/reply-part';
import type { SessionRecord, SessionStore } from '../storage/session-store';
import {
  SESSION_LIST_LIMIT,
  createSessionBodySchema,
  sessionMessageBodySchema,
  sessionMessagesQuerySchema,
} from './session-schemas';

/** Options of {@link sessionRoutes}. */
export interface SessionRoutesOptions {
  sessions: SessionStore;
  /** Where each session's channel is made (a DM of the user and the agent; every socket hears it). */
  channels: Pick<ChannelService, 'create'>;
  agents: AgentManager;
  messaging: MessagingService;
  /** How long an `http` message waits for the reply before 504 (ms). */
  syncTimeoutMs: number;
  /** Interval of keep-alive comments on an `sse` reply (ms). */
  sseKeepAliveMs: number;
}

/** A session as elizaOS answers it (`SessionInfoResponse`, with its channel). */
function sessionInfo(session: SessionRecord) {
  return {
    sessionId: session.id,
    agentId: session.agentId,
    userId: session.userId,
    channelId: session.channelId,
    createdAt: session.createdAt.toISOString(),
    lastActivity: session.lastActivity.toISOString(),
    metadata: session.metadata,
  };
}

/** A stored message as elizaOS's sessions answer it (`SimplifiedMessage`). */
function simplified(message: StoredMessage, session: SessionRecord) {
  const metadata = { ...message.metadata };
  return {
    id: message.id,
    content: message.content,
    authorId: message.author_id,
    isAgent: message.author_id === session.agentId,
    createdAt: message.created_at,
    metadata,
  };
}

/**
 * elizaOS's sessions API: a session is a user and an agent in a channel of their own (a DM made with the
 * session, the session's agent its agent), stored so that any process of the database serves it.
 * Messages enter through the same `converse()` as every channel message.
 */
export function sessionRoutes(options: SessionRoutesOptions): Hono<AppEnv> {
  const { sessions, agents, messaging } = options;
  const routes = new Hono<AppEnv>();

  async function sessionOf(value: string | undefined): Promise<SessionRecord> {
    const sessionId = parseOrThrow(uuidSchema, value, 'sessionId');
    const session = await sessions.get(sessionId);
    if (!session) throw new ParleyError('NOT_FOUND', `No session ${sessionId}`);
    return session;
  }

  routes.get('/api/messaging/sessions/health', async (c) =>
    c.json(
      success({
        status: 'healthy' as const,
        activeSessions: await sessions.count(),
        timestamp: new Date().toISOString(),
      }),
    ),
  );

  routes.get('/api/messaging/sessions', async (c) => {
    const [list, total] = await Promise.all([sessions.list(SESSION_LIST_LIMIT), sessions.count()]);
    const who = askerOf(c);
    if (!ChannelAccess.isAdmin(who)) {
      // A person sees their own sessions only.
      const own = list.filter((session) => session.userId === who!.entityId.toLowerCase());
      return c.json(success({ sessions: own.map(sessionInfo), total: own.length }));
    }
    return c.json(success({ sessions: list.map(sessionInfo), total }));
  });

  routes.post('/api/messaging/sessions', async (c) => {
    const body = await readJsonBody(c, createSessionBodySchema, 'session');
    const agent = await agents.details(body.agentId); // NOT_FOUND for an unknown agent
    const id = randomUUID();
    const agentId = body.agentId.toLowerCase();
    // A person opens a session as themselves only.
    const userId = postingEntity(askerOf(c), body.userId).toLowerCase();
    const channel = await options.channels.create(
      createChannelRequestSchema.parse({
        name: `Session with ${agent.name}`.slice(0, 100),
        type: 'DM',
        agentId,
        participants: [userId],
        metadata: { sessionId: id, agentId, userId },
      }),
    );
    await recordOwnerOnRequest(c, channel.id);
    const session = await sessions.create({
      id,
      agentId,
      userId,
      channelId: channel.id,
      metadata: body.metadata ?? {},
    });
    return c.json(success(sessionInfo(session)), 201);
  });

  routes.get('/api/messaging/sessions/:sessionId', async (c) => {
    const session = await sessionOf(c.req.param('sessionId'));
    await assertReadOnRequest(c, session.channelId);
    return c.json(success(sessionInfo(session)));
  });

  routes.delete('/api/messaging/sessions/:sessionId', async (c) => {
    const session = await sessionOf(c.req.param('sessionId'));
    await assertReadOnRequest(c, session.channelId);
    await sessions.delete(session.id);
    return c.json(success({ sessionId: session.id, deleted: true as const }));
  });

  routes.post('/api/messaging/sessions/:sessionId/messages', async (c) => {
    const session = await sessionOf(c.req.param('sessionId'));
    await assertPostOnRequest(c, session.channelId);
    const body = await readJsonBody(c, sessionMessageBodySchema, 'message');
    const transport =
      body.transport ??
      ({ sync: 'http', stream: 'sse', websocket: 'websocket' } as const)[body.mode ?? 'websocket'];
    const delivery = ({ http: 'sync', sse: 'stream', websocket: 'websocket' } as const)[transport];
    const { message, reply } = await messaging.converse({
      channelId: session.channelId,
      text: body.content,
      entityId: session.userId,
      agentId: session.agentId,
      metadata: {
        ...body.metadata,
        sessionId: session.id,
        ...(body.attachments ? { attachments: body.attachments } : {}),
      },
      source: 'session',
      delivery,
    });
    await sessions.touch(session.id);
    const userMessage = {
      id: message.id,
      content: message.content,
      authorId: message.author_id,
      createdAt: message.created_at,
      metadata: message.metadata,
    };
    if (transport === 'sse') {
      const sse = createSseStream(options.sseKeepAliveMs);
      const start = startOf(reply.replyId);
      sse.send(
        'user_message',
        { id: message.id, text: message.content, replyId: reply.replyId },
        toEventId(start),
      );
      sendReplyEvents(reply, sse, start);
      return sse.response;
    }
    if (transport === 'http') {
      const end = await waitForEnd(reply, options.syncTimeoutMs);
      const { agentResponse, awaitingApproval } = sessionAnswerOf(end);
      return c.json(
        success({
          success: true,
          userMessage,
          agentResponse,
          replyId: reply.replyId,
          ...(awaitingApproval ? { awaitingApproval } : {}),
        }),
        201,
      );
    }
    return c.json(success({ success: true, userMessage, replyId: reply.replyId }), 201);
  });

  routes.get('/api/messaging/sessions/:sessionId/messages', async (c) => {
    const session = await sessionOf(c.req.param('sessionId'));
    await assertReadOnRequest(c, session.channelId);
    const query = parseOrThrow(sessionMessagesQuerySchema, c.req.query(), 'query');
    // One more than asked tells whether there are more.
    const page = await messaging.history(session.channelId, {
      limit: Math.min(query.limit + 1, 200),
      ...(query.before ? { before: query.before.toISOString() } : {}),
    });
    const after = query.after?.getTime();
    const newer = after === undefined ? page : page.filter((m) => Date.parse(m.created_at) > after);
    const messages = newer.slice(0, query.limit).map((message) => simplified(message, session));
    return c.json(success({ messages, hasMore: newer.length > query.limit }));
  });

  return routes;
}

/**
 * elizaOS's `agentResponse` for a reply's last part (its failure was thrown by `waitForEnd`); a reply that waits
 * for approvals says what it waits for.
 */
function sessionAnswerOf(end: Exclude<ReplyFinalPart, { type: 'error' }>) {
  switch (end.type) {
    case 'reply-end':
      return {
        agentResponse: {
          text: end.text,
          actions: end.actions,
          ...(end.thought ? { thought: end.thought } : {}),
        },
        awaitingApproval: undefined,
      };
    case 'reply-pause':
      return {
        agentResponse: { text: end.text, actions: [] as string[] },
        awaitingApproval: end.requests,
      };
    default:
      return end satisfies never;
  }
}
