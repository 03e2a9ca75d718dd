import { createHash } from 'node:crypto';
import {
  assertDecideOnRequest,
  assertReadOnRequest,
  requestPerson,
} from '../identity/channel-access';
import { ParleyError, isUuid, messageTextSchema, parseOrThrow, uuidFromBytes } from '@parley/core';
import { Hono } from 'hono';
import type { AgentProfile } from '../agents/agent-profile';
import type { AgentRegistry } from '../agents/agent-registry';
import type { AppEnv } from '../http/app-env';
import { idempotencyKey } from '../http/idempotency-key';
import { readJsonBody } from '../http/read-body';
import { createSseStream } from '../http/sse-stream';
import type { MessagingService } from '../messaging/messaging-service';
import { ReplyStream } from '../reply/parts/reply-stream';
import type { MessageStore } from '../storage/message-store';
import { approvalAnswers, uiChatRequestSchema, userText } from './ui-chat-schemas';
import { UI_MESSAGE_STREAM_HEADER, followAsChunks } from './ui-message-chunks';

/** Where the UI message stream face is: `POST {UI_CHAT_PATH}/{agentId}`, `GET …/{agentId}/{chatId}/stream`. */
export const UI_CHAT_PATH = '/api/messaging/ui-chat';
/** The `source` of the messages that enter through the UI chat face. */
export const UI_CHAT_SOURCE = 'ui-chat';
/** The headers every answer tells: the chat's channel and the reply's id (for the channel API). */
export const UI_CHANNEL_HEADER = 'x-parley-channel-id';
export const UI_REPLY_HEADER = 'x-parley-reply-id';

/** What the UI chat face needs. */
export interface UIChatContext {
  agents: AgentRegistry;
  messaging: MessagingService;
  /** Interval of keep-alive comments on a stream (ms). */
  sseKeepAliveMs: number;
  /** Where a resume on a process that does not run the reply finds it, once stored. */
  store?: Pick<MessageStore, 'findReplyTo'>;
}

/** How long a resume on a process that does not run the chat's reply waits for it stored (ms). */
export const UI_RESUME_FOLLOW_MS = 120_000;
/** How often that resume looks for the reply stored (ms). */
const UI_RESUME_POLL_MS = 100;

/**
 * The chat question whose reply may run in another process: the channel's newest message when it is a chat
 * question younger than {@link UI_RESUME_FOLLOW_MS} with no reply stored yet; undefined otherwise.
 */
async function questionAwaitingReply(
  context: UIChatContext,
  channelId: string,
): Promise<{ id: string; deadline: number } | undefined> {
  const store = context.store;
  if (!store) return undefined;
  const [newest] = await context.messaging.history(channelId, { limit: 1 });
  if (!newest || newest.source_type !== UI_CHAT_SOURCE) return undefined;
  const deadline = Date.parse(newest.created_at) + UI_RESUME_FOLLOW_MS;
  if (Date.now() >= deadline || (await store.findReplyTo(newest.id))) return undefined;
  return { id: newest.id, deadline };
}

/** The reply to `questionId` once stored (polled until `deadline` or the client leaves). */
async function storedReplyTo(
  store: Pick<MessageStore, 'findReplyTo'>,
  questionId: string,
  deadline: number,
  signal: AbortSignal,
): Promise<ReplyStream | undefined> {
  while (!signal.aborted && Date.now() < deadline) {
    const reply = await store.findReplyTo(questionId).catch(() => undefined);
    if (reply) return ReplyStream.ofStored(reply);
    await new Promise((resolve) => setTimeout(resolve, UI_RESUME_POLL_MS).unref());
  }
  return undefined;
}

/** A UUID (version 8) named by `text`: the same text, the same id, in every process. */
function namedUuid(text: string): string {
  return uuidFromBytes(createHash('sha256').update(text).digest(), 8);
}

/** The channel of a chat: its id when that is a UUID (a channel the chat page shows), else one named by it. */
export function chatChannel(agentId: string, chatId: string): string {
  // A boolean, not the guard: the guard would narrow the other branch's string away.
  const named: boolean = !isUuid(chatId);
  return named ? namedUuid(`parley:ui-chat:${agentId}:${chatId}`) : chatId.toLowerCase();
}

function findAgent(agents: AgentRegistry, agentId: string): AgentProfile {
  const agent = agents.find(agentId);
  if (!agent || agents.isStopped(agent.agentId)) {
    throw new ParleyError('NOT_FOUND', `No agent ${agentId}`);
  }
  return agent;
}

/**
 * The AI SDK's UI message stream face of the agents, which `useChat` with `DefaultChatTransport` talks to
 * unchanged (`api: '/api/messaging/ui-chat/{agentId}'`):
 * - `POST /api/messaging/ui-chat/{agentId}`: the last message, a user's, is posted to the chat's channel through
 *   the one conversation entry and the reply answered as a UI message stream; or the last message, the agent's,
 *   carries the person's approval responses: they are decided and the rest of the reply is streamed.
 * - `GET /api/messaging/ui-chat/{agentId}/{chatId}/stream`: the chat's running reply from its start (resume; on a
 *   process that does not run it, the reply replayed once stored), or
 *   204 when none runs.
 * Closing the connection does not cancel the reply (so that it can be resumed): cancel it by its id
 * (`X-Parley-Reply-Id`) through `POST /api/messaging/replies/{replyId}/cancel`.
 */
export function uiChatRoutes(context: UIChatContext): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  /** The running reply of each chat's channel, in this process: what a resume reads. */
  const running = new Map<string, string>();

  const track = (reply: ReplyStream) => {
    running.set(reply.channelId, reply.replyId);
    void reply.ended.then(() => {
      if (running.get(reply.channelId) === reply.replyId) running.delete(reply.channelId);
    });
  };

  /** The reply's chunks as a UI message stream response. */
  const streamOf = (
    reply: ReplyStream,
    options: { live: boolean; denied?: ReadonlySet<string> },
  ): Response => {
    const sse = createSseStream(context.sseKeepAliveMs);
    sse.response.headers.set(UI_MESSAGE_STREAM_HEADER, 'v1');
    sse.response.headers.set(UI_CHANNEL_HEADER, reply.channelId);
    sse.response.headers.set(UI_REPLY_HEADER, reply.replyId);
    const stop = followAsChunks(
      reply,
      {
        chunk: (chunk) => sse.sendData(chunk),
        end: () => {
          sse.sendData('[DONE]');
          sse.close();
        },
      },
      options,
    );
    sse.signal.addEventListener('abort', stop, { once: true });
    return sse.response;
  };

  /**
   * A stream answered at once for a reply another process runs: its chunks once it is stored; an error chunk
   * when it is not stored in time.
   */
  const followElsewhere = (channelId: string, question: { id: string; deadline: number }) => {
    const sse = createSseStream(context.sseKeepAliveMs);
    sse.response.headers.set(UI_MESSAGE_STREAM_HEADER, 'v1');
    sse.response.headers.set(UI_CHANNEL_HEADER, channelId);
    const end = () => {
      sse.sendData('[DONE]');
      sse.close();
    };
    void storedReplyTo(context.store!, question.id, question.deadline, sse.signal).then((reply) => {
      if (sse.signal.aborted) return;
      if (!reply) {
        sse.sendData({ type: 'error', errorText: 'The reply was not stored in time to resume' });
        return end();
      }
      const stop = followAsChunks(
        reply,
        { chunk: (chunk) => sse.sendData(chunk), end },
        { live: false },
      );
      sse.signal.addEventListener('abort', stop, { once: true });
    });
    return sse.response;
  };

  routes.post(`${UI_CHAT_PATH}/:agentId`, async (c) => {
    const agent = findAgent(context.agents, c.req.param('agentId'));
    const body = await readJsonBody(c, uiChatRequestSchema, 'request');
    const person = requestPerson(c);
    // A person's chat ids are theirs: the same id from another person is another channel.
    const channelId = chatChannel(
      agent.agentId,
      person ? `${person.entityId}:${body.id}` : body.id,
    );
    await person?.authorize(channelId);
    const last = body.messages.at(-1)!;

    if (last.role === 'assistant') {
      // AI SDK 6's approval flow: the agent's message comes back with the person's answers on its tool parts.
      const answers = approvalAnswers(last);
      if (answers.length === 0) {
        throw new ParleyError(
          'BAD_REQUEST',
          "The last message is the assistant's without approval responses: send a user message",
        );
      }
      if (!isUuid(last.id)) {
        throw new ParleyError('BAD_REQUEST', "The assistant message's id is not a reply id");
      }
      const replyId = last.id.toLowerCase();
      await assertDecideOnRequest(c, replyId);
      for (const answer of answers) {
        await context.messaging.decideApproval(
          replyId,
          { ...answer, decidedBy: UI_CHAT_SOURCE },
          channelId,
        );
      }
      const reply = await context.messaging.openReply(replyId, channelId);
      track(reply);
      const denied = new Set(answers.filter((a) => !a.approved).map((a) => a.toolCallId));
      return streamOf(reply, { live: true, denied });
    }

    if (last.role !== 'user') {
      throw new ParleyError('BAD_REQUEST', 'The last message must be a user message');
    }
    const text = parseOrThrow(messageTextSchema, userText(last), 'messages[-1]');
    if (text.trim() === '') {
      throw new ParleyError('BAD_REQUEST', 'The last user message has no text part');
    }
    const { reply } = await context.messaging.converse({
      channelId,
      text,
      entityId: person?.entityId ?? namedUuid(`parley:ui-chat-user:${channelId}`),
      senderName: 'Chat user',
      metadata: { uiChat: { chatId: body.id, messageId: last.id } },
      agentId: agent.agentId,
      source: UI_CHAT_SOURCE,
      idempotencyKey: idempotencyKey(c),
      delivery: 'ui-message-stream',
    });
    track(reply);
    return streamOf(reply, { live: false });
  });

  routes.get(`${UI_CHAT_PATH}/:agentId/:chatId/stream`, async (c) => {
    const agent = findAgent(context.agents, c.req.param('agentId'));
    const chatId = c.req.param('chatId');
    if (chatId.length > 256) throw new ParleyError('BAD_REQUEST', 'The chat id is too long');
    const person = requestPerson(c);
    const channelId = chatChannel(agent.agentId, person ? `${person.entityId}:${chatId}` : chatId);
    const replyId = running.get(channelId);
    await assertReadOnRequest(c, channelId);
    if (replyId === undefined) {
      // Behind a load balancer the reply may run in another process: replayed whole once it is stored.
      const question = await questionAwaitingReply(context, channelId);
      return question ? followElsewhere(channelId, question) : c.body(null, 204);
    }
    const reply = await context.messaging.openReply(replyId).catch(() => undefined);
    if (!reply || reply.final) return c.body(null, 204);
    return streamOf(reply, { live: false });
  });

  return routes;
}
