import {
  ParleyError,
  agentMessageSchema,
  channelHistoryQuerySchema,
  channelMessageRequestSchema,
  parseOrThrow,
  uuidSchema,
} from '@parley/core';
import { Hono } from 'hono';
import type { ParleyAgentRuntime } from '../../agents/agent-runtime';
import type { MessagingService } from '../../messaging/messaging-service';
import type { StoredMessage } from '@parley/core';
import type { AppEnv } from '../app-env';
import { success } from '../envelope';
import { logError, toParleyError } from '../../errors/to-parley-error';
import { readJsonBody } from '../read-body';
import { createSseStream } from '../sse-stream';
import type { Logger } from 'pino';

/** Options of {@link messagingRoutes}. */
export interface MessagingRoutesOptions {
  /** How long a `sync` request waits for the reply before 504 (ms). */
  syncTimeoutMs: number;
  /** Interval of keep-alive comments on a slow `stream` reply (ms). */
  sseKeepAliveMs: number;
}

/**
 * `POST /api/messaging/submit`, and channel messages in the three delivery modes plus history. Only
 * translation between HTTP and the messaging service happens here.
 */
export function messagingRoutes(
  messaging: MessagingService,
  options: MessagingRoutesOptions,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.post('/api/messaging/submit', async (c) => {
    const body = await readJsonBody(c, agentMessageSchema, 'message');
    const message = await messaging.submit(body);
    return c.json(success(message), 201);
  });

  routes.get('/api/messaging/channels/:channelId/messages', async (c) => {
    const channelId = parseOrThrow(uuidSchema, c.req.param('channelId'), 'channelId');
    const query = parseOrThrow(channelHistoryQuerySchema, c.req.query(), 'query');
    return c.json(success(await messaging.history(channelId, query)));
  });

  routes.post('/api/messaging/channels/:channelId/messages', async (c) => {
    const channelId = parseOrThrow(uuidSchema, c.req.param('channelId'), 'channelId');
    const body = await readJsonBody(c, channelMessageRequestSchema, 'message');
    const { message, agent } = await messaging.postUserMessage({
      channelId,
      text: body.text,
      entityId: body.entityId,
      senderName: body.senderName,
      metadata: body.metadata,
      agentId: body.agentId,
      source: 'api',
    });
    const userMessage = { id: message.id, text: message.content };
    const logger = c.get('logger');

    if (body.mode === 'stream') return streamReply(messaging, agent, message, options, logger);
    if (body.mode === 'sync') {
      const reply = await syncReply(
        messaging,
        agent,
        message,
        options.syncTimeoutMs,
        c.req.raw.signal,
      );
      return c.json({
        success: true,
        userMessage,
        agentResponse: { text: reply.text, actions: reply.actions },
      });
    }
    messaging.reply(agent, message).catch((error: unknown) => {
      const parleyError = toParleyError(error);
      logError(logger, parleyError, { channelId, messageId: message.id });
      messaging.broadcaster.emit(channelId, 'messageError', {
        code: parleyError.code,
        message: parleyError.message,
        messageId: message.id,
        roomId: channelId,
      });
    });
    return c.json({ success: true, userMessage }, 202);
  });

  return routes;
}

async function syncReply(
  messaging: MessagingService,
  agent: ParleyAgentRuntime,
  message: StoredMessage,
  timeoutMs: number,
  clientSignal: AbortSignal,
) {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  try {
    return await messaging.reply(agent, message, {
      signal: AbortSignal.any([timeout.signal, clientSignal]),
    });
  } catch (error) {
    if (timeout.signal.aborted) {
      throw new ParleyError('TIMEOUT', `The agent did not reply within ${timeoutMs} ms`, {
        cause: error,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function streamReply(
  messaging: MessagingService,
  agent: ParleyAgentRuntime,
  message: StoredMessage,
  options: MessagingRoutesOptions,
  logger: Logger,
): Response {
  const sse = createSseStream(options.sseKeepAliveMs);
  let eventId = 0;
  const send = (event: string, data: unknown) => sse.send(event, data, String(eventId++));
  send('user_message', { id: message.id, text: message.content });
  messaging
    .reply(agent, message, {
      signal: sse.signal,
      onChunk: (chunk, index, messageId) => send('chunk', { messageId, chunk, index }),
    })
    .then(
      (reply) => send('done', { text: reply.text, actions: reply.actions }),
      (error: unknown) => {
        if (sse.signal.aborted) return;
        const parleyError = toParleyError(error);
        logError(logger, parleyError, { channelId: message.channel_id, messageId: message.id });
        send('error', { code: parleyError.code, message: parleyError.message });
      },
    )
    .finally(() => sse.close());
  return sse.response;
}
