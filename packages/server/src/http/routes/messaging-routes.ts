import {
  ParleyError,
  type SyncModeResponse,
  approvalDecisionSchema,
  agentMessageSchema,
  isRecord,
  channelMessageRequestSchema,
  editMessageRequestSchema,
  parseOrThrow,
  uuidSchema,
} from '@parley/core';
import { Hono } from 'hono';
import { z } from 'zod';
import { fromElizaSubmit, isElizaPost, postElizaMessage } from '../../channels/eliza-post';
import { withElizaNames } from '../../channels/eliza-shapes';
import {
  ChannelAccess,
  type ChannelAsker,
  askerOf,
  postingEntity,
} from '../../identity/channel-access';
import type { MessagingService } from '../../messaging/messaging-service';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';
import { idempotencyKey } from '../idempotency-key';
import { readJsonBody } from '../read-body';
import { type ReplyPosition, parseEventId, toEventId } from '../reply-event-id';
import { sendReplyEvents, startOf, toAgentResponse, waitForEnd } from '../reply-events';
import { createSseStream, type SseStream } from '../sse-stream';

/** Options of {@link messagingRoutes}. */
export interface MessagingRoutesOptions {
  /** How long a `sync` request waits for the reply before 504 (ms). */
  syncTimeoutMs: number;
  /** Interval of keep-alive comments on a slow `stream` reply (ms). */
  sseKeepAliveMs: number;
  /** Who may read and post in which channel (every request asks it). */
  access: ChannelAccess;
}

/**
 * `POST /api/messaging/submit`, channel messages in the three delivery modes, history, and resuming a
 * reply's event stream. Only translation between HTTP and the messaging service happens here: every mode
 * starts the same reply, which the room always receives; `stream` and `sync` are two more consumers of it.
 */
export function messagingRoutes(
  messaging: MessagingService,
  options: MessagingRoutesOptions,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { access } = options;

  routes.post('/api/messaging/submit', async (c) => {
    // elizaOS's client sends camel-case names (`channelId`, `agentId`…): read as Parley's.
    const raw = await readJsonBody(c, z.unknown(), 'message');
    const body = parseOrThrow(agentMessageSchema, fromElizaSubmit(raw), 'message');
    // Submit stores a message as any author (agents' messages): an admin's door only.
    const who = askerOf(c);
    if (!ChannelAccess.isAdmin(who)) {
      throw new ParleyError('FORBIDDEN', 'Only an admin may submit messages as another author');
    }
    const { message } = await messaging.submit(body, idempotencyKey(c));
    return c.json(success(withElizaNames(message)), 201);
  });

  // History (`GET …/channels/{channelId}/messages`) is served with the channels: see channels/channel-routes.ts.

  routes.post('/api/messaging/channels/:channelId/messages', async (c) => {
    const channelId = parseOrThrow(uuidSchema, c.req.param('channelId'), 'channelId');
    // A client reconnecting to a stream (an EventSource, @parley/client) repeats the request with the id of
    // the last event it got: it continues that reply instead of posting the message again.
    const who = askerOf(c);
    const resumeFrom = parseEventId(c.req.header('last-event-id'));
    if (resumeFrom) {
      await access.assertRead(who, channelId);
      return resume(messaging, resumeFrom, options, channelId);
    }

    const raw = await readJsonBody(c, z.unknown(), 'message');
    // elizaOS's `postMessage` body (`{ content, metadata }`, no `text`): answered as elizaOS answers.
    if (isElizaPost(raw)) {
      await access.assertPost(who, channelId);
      return postElizaMessage(c, messaging, channelId, raw);
    }
    // A signed-in person may leave out `entityId`: they speak as themselves.
    const body = parseOrThrow(
      channelMessageRequestSchema,
      who && !ChannelAccess.isAdmin(who) && isRecord(raw) && raw.entityId === undefined
        ? { ...raw, entityId: who.entityId }
        : raw,
      'message',
    );
    const entityId = postingEntity(who, body.entityId) ?? body.entityId;
    const channel = await access.assertPost(who, channelId);
    const { message, reply } = await messaging.converse({
      channelId,
      channel,
      text: body.text,
      entityId,
      senderName: body.senderName,
      metadata: body.metadata,
      agentId: body.agentId,
      source: 'api',
      idempotencyKey: idempotencyKey(c),
      delivery: body.mode,
      ifBusy: body.ifBusy,
    });
    const userMessage = { id: message.id, text: message.content };

    if (body.mode === 'stream') {
      const sse = createSseStream(options.sseKeepAliveMs);
      const start = startOf(reply.replyId);
      sse.send('user_message', { ...userMessage, replyId: reply.replyId }, toEventId(start));
      sendReplyEvents(reply, sse, start, follow(messaging, sse, channelId));
      return sse.response;
    }
    if (body.mode === 'sync') {
      const end = await waitForEnd(reply, options.syncTimeoutMs);
      if (end.type === 'reply-pause') {
        // The reply waits for people: what it has so far, and what it waits for.
        return c.json(
          {
            success: true,
            userMessage,
            agentResponse: { text: end.text, actions: [], toolCalls: end.toolCalls },
            awaitingApproval: end.requests,
            replyId: reply.replyId,
          } satisfies SyncModeResponse,
          202,
        );
      }
      return c.json({
        success: true,
        userMessage,
        agentResponse: toAgentResponse(end),
        replyId: reply.replyId,
      } satisfies SyncModeResponse);
    }
    return c.json({ success: true, userMessage, replyId: reply.replyId }, 202);
  });

  // Regenerate: the channel's agent answers a stored user message again; 202 with the new reply's id (it streams
  // to the room like any reply, and is stored with `in_reply_to` the message). No body is read.
  routes.post('/api/messaging/channels/:channelId/messages/:messageId/regenerate', async (c) => {
    const channelId = parseOrThrow(uuidSchema, c.req.param('channelId'), 'channelId');
    const messageId = parseOrThrow(uuidSchema, c.req.param('messageId'), 'messageId');
    // Answering again posts into an existing channel: only its members (or the operator) may ask.
    const who = askerOf(c);
    if (!ChannelAccess.isAdmin(who)) await access.assertRead(who, channelId);
    const { message, reply } = await messaging.regenerate(channelId, messageId);
    return c.json(
      success({ messageId: message.id, replyId: reply.replyId, status: 'answering' as const }),
      202,
    );
  });

  // Edit and resend: the author (or an admin) changes their message's text; the room gets the message again
  // with the new text, and the agent answers it again as Regenerate does (the earlier answers kept). 202 with
  // the new reply's id.
  routes.post('/api/messaging/channels/:channelId/messages/:messageId/edit', async (c) => {
    const channelId = parseOrThrow(uuidSchema, c.req.param('channelId'), 'channelId');
    const messageId = parseOrThrow(uuidSchema, c.req.param('messageId'), 'messageId');
    const { text } = await readJsonBody(c, editMessageRequestSchema, 'edit');
    const who = askerOf(c);
    const admin = ChannelAccess.isAdmin(who);
    if (!admin) await access.assertRead(who, channelId);
    const { message, reply } = await messaging.edit(channelId, messageId, text, {
      admin,
      entityId: who?.entityId,
    });
    return c.json(
      success({
        messageId: message.id,
        text: message.content,
        replyId: reply.replyId,
        status: 'answering' as const,
      }),
      202,
    );
  });

  // Stops a running reply, whichever process of the cluster holds it: 202 once it is cancelled (its streams end
  // with CANCELLED), 404 for an unknown reply, 409 for one that already ended or is being stored. No body is
  // read.
  routes.post('/api/messaging/replies/:replyId/cancel', async (c) => {
    const replyId = parseOrThrow(uuidSchema, c.req.param('replyId'), 'replyId');
    const who = askerOf(c);
    if (ChannelAccess.isAdmin(who)) await messaging.cancelReply(replyId);
    else
      await messaging.cancelReply(replyId, await channelOfReply(messaging, access, who, replyId));
    return c.json(success({ replyId, status: 'cancelled' as const }), 202);
  });

  // Approves or denies one call of a paused reply: 202 once taken (the reply goes on when all its requests are
  // decided), 404 for an unknown reply or call, 409 when already decided or expired.
  routes.post('/api/messaging/replies/:replyId/approvals', async (c) => {
    const replyId = parseOrThrow(uuidSchema, c.req.param('replyId'), 'replyId');
    const body = await readJsonBody(c, approvalDecisionSchema, 'decision');
    const who = askerOf(c);
    await access.assertDecide(who, replyId);
    // Who decided, as a receipt signs it: the person, else the API key's holder.
    const decidedBy = ChannelAccess.isAdmin(who) ? 'api' : `user:${who!.entityId}`;
    const decided = await messaging.decideApproval(replyId, { ...body, decidedBy });
    return c.json(success(decided), 202);
  });

  routes.get('/api/messaging/replies/:replyId/events', (c) => {
    const replyId = parseOrThrow(uuidSchema, c.req.param('replyId'), 'replyId');
    const from = parseEventId(c.req.header('last-event-id') ?? c.req.query('lastEventId'));
    if (from && from.replyId !== replyId) {
      throw new ParleyError('BAD_REQUEST', 'Last-Event-ID belongs to another reply');
    }
    return resume(messaging, from ?? startOf(replyId), options, undefined, askerOf(c));
  });

  return routes;
}

/**
 * The rest of a reply's events after `from`: live while the reply runs (or from memory shortly after), else
 * from storage; with `channelId`, only a reply of that channel. A stream the client already saw to its end
 * answers 204, which tells an EventSource to stop.
 */
async function resume(
  messaging: MessagingService,
  from: ReplyPosition,
  options: MessagingRoutesOptions,
  channelId?: string,
  who?: ChannelAsker,
): Promise<Response> {
  // A person resumes only a reply of a channel of theirs: asked before anything of it is sent.
  if (channelId === undefined && !ChannelAccess.isAdmin(who)) {
    channelId = await channelOfReply(messaging, options.access, who, from.replyId);
  }
  if (from.kind === 'end') return new Response(null, { status: 204 });
  const sse = createSseStream(options.sseKeepAliveMs);
  const reply = await messaging.openReply(from.replyId, channelId, sse.signal);
  sendReplyEvents(reply, sse, from, follow(messaging, sse, channelId));
  return sse.response;
}

/**
 * What an SSE response does when its reply pauses for approvals: it stays open and follows the reply, from the
 * client's position, wherever it goes on (a reply that cannot be followed ends the stream with its error).
 */
function follow(messaging: MessagingService, sse: SseStream, channelId?: string) {
  const onPause = (position: ReplyPosition, approvalsSent: Set<string>) => {
    messaging.openReply(position.replyId, channelId, sse.signal).then(
      (reply) => sendReplyEvents(reply, sse, position, onPause, approvalsSent),
      (error: unknown) => {
        const { code, message } = ParleyError.isInstance(error)
          ? error
          : new ParleyError('UNAVAILABLE', 'The reply cannot be followed now');
        sse.send('error', { code, message }, toEventId({ replyId: position.replyId, kind: 'end' }));
        sse.close();
      },
    );
  };
  return onPause;
}

/**
 * The channel of a reply, when `who` may read it; FORBIDDEN otherwise (NOT_FOUND for no such reply). The reply
 * is opened only to learn its channel, and let go at once.
 */
async function channelOfReply(
  messaging: MessagingService,
  access: ChannelAccess,
  who: ChannelAsker | undefined,
  replyId: string,
): Promise<string> {
  const done = new AbortController();
  try {
    const reply = await messaging.openReply(replyId, undefined, done.signal);
    await access.assertRead(who, reply.channelId);
    return reply.channelId;
  } finally {
    done.abort();
  }
}
