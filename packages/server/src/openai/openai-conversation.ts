import { createHash } from 'node:crypto';
import type { RequestPerson } from '../identity/channel-access';
import {
  ParleyError,
  agentMessageSchema,
  isUuid,
  messageTextSchema,
  parseOrThrow,
  reservedUuid,
  uuidFromBytes,
} from '@parley/core';
import type { AgentProfile } from '../agents/agent-profile';
import type { AgentRegistry } from '../agents/agent-registry';
import type { MessagingService } from '../messaging/messaging-service';
import type { ReplyFinalPart } from '../reply/parts/reply-part';
import type { ReplyStream } from '../reply/parts/reply-stream';
import type { SseStream } from '../http/sse-stream';
import { waitForEnd } from '../http/reply-events';
import { followReply } from './reply-content';
import { openAIError } from './openai-errors';

/** The header that names (in a request) and tells (in every answer) the channel a conversation is held in. */
export const CHANNEL_HEADER = 'x-parley-channel-id';
/** The header that tells the reply's id (for the channel API: events, cancel, approvals). */
export const REPLY_HEADER = 'x-parley-reply-id';

/** The `source` of the messages that enter through `/v1`. */
export const OPENAI_SOURCE = 'openai';
/** The `source_type` of the earlier turns a new channel is seeded with. */
export const OPENAI_SEED_SOURCE = 'openai_history';
/** How many earlier turns of a request seed a new channel, at most (the model reads 20 by default). */
export const MAX_SEEDED_TURNS = 20;

/** What the OpenAI face needs. */
export interface OpenAIFaceContext {
  /** The agents, live (the ones created and deleted at run time too). */
  agents: AgentRegistry;
  messaging: MessagingService;
  /** How long a non-streaming answer waits for the reply (the reply goes on after). */
  syncTimeoutMs: number;
  /** Interval of keep-alive comments on a streamed answer (ms). */
  sseKeepAliveMs: number;
}

/** An earlier turn of the caller's conversation. */
export interface Turn {
  role: 'user' | 'assistant';
  text: string;
}

/** One conversation request, as both OpenAI APIs ask it. */
export interface ConversationRequest {
  /** The `model` field: an agent's id or its name. */
  model: string;
  /** The user's new message: the one posted. */
  text: string;
  /** The turns before it, in order: a new channel is seeded with them. */
  earlier: Turn[];
  /** The channel named by the caller (header, or the previous response's). */
  channelId?: string;
  /** A conversation named by the caller (`metadata.conversation_id`, `user`): one channel per agent and name. */
  conversation?: string;
  /** The `user` field: who speaks (their entity and name). */
  user?: string;
  idempotencyKey?: string;
  /** What is kept with the user's message (`metadata`, `instructions`), never given to the model. */
  metadata: Record<string, unknown>;
  /** How the answer is taken (part of what an idempotent request asks). */
  delivery: string;
  /** The signed-in person asking (none for an admin): they speak as themselves, in channels of theirs. */
  person?: RequestPerson;
}

/** The posted message and the agent's reply. */
export interface StartedConversation {
  agent: AgentProfile;
  reply: ReplyStream;
  channelId: string;
}

/** A UUID (version 8) named by `text`: the same text, the same id, in every process. */
function namedUuid(text: string): string {
  return uuidFromBytes(createHash('sha256').update(text).digest(), 8);
}

/** The agent a `model` names: its id, else its name (when exactly one running agent has it). */
export function findModel(agents: AgentRegistry, model: string): AgentProfile {
  const byId = agents.find(model);
  const named = byId ? [byId] : agents.list().filter((agent) => agent.character.name === model);
  const agent = named.length === 1 ? named[0] : undefined;
  if (!agent || agents.isStopped(agent.agentId)) {
    throw openAIError(
      'NOT_FOUND',
      `The model '${model}' does not exist or you do not have access to it.`,
      'model',
      'model_not_found',
    );
  }
  return agent;
}

/** The channel a request names in its header: a UUID, else a 400 naming the header. */
export function channelFromHeader(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isUuid(value.trim())) {
    throw openAIError('BAD_REQUEST', 'X-Parley-Channel-Id must be a UUID', 'X-Parley-Channel-Id');
  }
  return value.trim().toLowerCase();
}

/** The channel of a request: the one named, else the conversation's, else a new one. */
function channelOf(request: ConversationRequest, agent: AgentProfile, entityId: string): string {
  if (request.channelId) return request.channelId;
  if (request.conversation !== undefined) {
    return namedUuid(`parley:openai-conversation:${agent.agentId}:${request.conversation}`);
  }
  // Tries of one idempotent request land in one channel: its seed is written once, and the key finds its reply.
  if (request.idempotencyKey !== undefined) {
    return namedUuid(
      `parley:openai-request:${agent.agentId}:${entityId}:${request.idempotencyKey}`,
    );
  }
  return reservedUuid();
}

/**
 * Posts the user's message as `model`'s agent's conversation, through the one conversation entry
 * (`MessagingService.converse`), and returns the reply started. A channel without messages is first seeded with
 * the request's earlier turns (at most {@link MAX_SEEDED_TURNS}, the user's as the caller, the assistant's as the
 * agent, stored without replies, once however many requests seed at once), so that the agent reads the
 * conversation the caller holds; a channel that has messages already holds them, and only the new message is
 * posted.
 */
export async function startConversation(
  context: OpenAIFaceContext,
  request: ConversationRequest,
): Promise<StartedConversation> {
  const agent = findModel(context.agents, request.model);
  const text = parseOrThrow(messageTextSchema, request.text, 'message');
  if (text.trim() === '') {
    throw openAIError('BAD_REQUEST', 'The last user message has no text', 'messages');
  }
  const entityId =
    request.person?.entityId ?? namedUuid(`parley:openai-user:${request.user ?? ''}`);
  // A person's named conversations are theirs: another person naming the same one gets another channel.
  const channelId = channelOf(
    request.person && request.conversation !== undefined
      ? { ...request, conversation: `${entityId}:${request.conversation}` }
      : request,
    agent,
    entityId,
  );
  await request.person?.authorize(channelId);
  const senderName = request.user?.trim() || 'OpenAI client';
  if (request.earlier.length > 0) {
    await seed(context.messaging, channelId, agent, entityId, request);
  }
  const { reply } = await context.messaging.converse({
    channelId,
    text,
    entityId,
    senderName,
    metadata: request.metadata,
    agentId: agent.agentId,
    source: OPENAI_SOURCE,
    idempotencyKey: request.idempotencyKey,
    delivery: request.delivery,
  });
  return { agent, reply, channelId };
}

/**
 * Stores the earlier turns in a channel that has no messages yet, each under an idempotency key of its place and
 * content, so that requests seeding one channel at once (or tries of one request) store each turn once.
 */
async function seed(
  messaging: MessagingService,
  channelId: string,
  agent: AgentProfile,
  entityId: string,
  request: ConversationRequest,
): Promise<void> {
  const [newest] = await messaging.history(channelId, { limit: 1 });
  if (newest) return;
  const turns = request.earlier.filter((turn) => turn.text.trim() !== '').slice(-MAX_SEEDED_TURNS);
  for (const [index, turn] of turns.entries()) {
    const message = parseOrThrow(
      agentMessageSchema,
      {
        channel_id: channelId,
        author_id: turn.role === 'user' ? entityId : agent.agentId,
        content: turn.text,
        source_type: OPENAI_SEED_SOURCE,
        metadata: turn.role === 'user' ? {} : { agent_id: agent.agentId },
      },
      `messages.${index}`,
    );
    // Keyed by place and content: requests of one conversation released together seed it once.
    const digest = createHash('sha256').update(`${turn.role}\n${turn.text}`).digest('base64url');
    await messaging.submit(message, `openai-seed:${index}:${digest}`);
  }
}

/**
 * Cancels `reply` when `signal` aborts (the client closed the connection): the reply ends CANCELLED and
 * nothing of it is stored. Returns the function that stops listening.
 */
export function cancelOnAbort(
  messaging: MessagingService,
  reply: ReplyStream,
  signal: AbortSignal,
): () => void {
  const cancel = () => {
    if (reply.final) return;
    messaging.cancelReply(reply.replyId).catch(() => undefined);
  };
  if (signal.aborted) {
    cancel();
    return () => undefined;
  }
  signal.addEventListener('abort', cancel, { once: true });
  return () => signal.removeEventListener('abort', cancel);
}

/**
 * The content of a reply answered in one body, once the reply ended (as `followReply` reads it; a failure is
 * thrown, as `waitForEnd` throws it). Closing the connection (`signal`) cancels the reply.
 */
export async function wholeContent(
  context: OpenAIFaceContext,
  reply: ReplyStream,
  signal: AbortSignal,
): Promise<string> {
  let content = '';
  const stopFollowing = followReply(reply, {
    text: (piece) => (content += piece),
    end: () => undefined,
  });
  const stopCancel = cancelOnAbort(context.messaging, reply, signal);
  try {
    await waitForEnd(reply, context.syncTimeoutMs);
    return content;
  } finally {
    stopCancel();
    stopFollowing();
  }
}

/**
 * What a streamed answer writes: each piece of the reply's content as it comes, then the reply's end, by the
 * type of its last part (a handler for each: a new way to end fails to compile until it is answered), given the
 * whole content.
 */
export type StreamedAnswer = { text: (piece: string) => void } & {
  [Type in ReplyFinalPart['type']]: (
    part: Extract<ReplyFinalPart, { type: Type }>,
    content: string,
  ) => void;
};

/**
 * Streams a reply into `sse` as `answer` writes it (its content as `followReply` reads it), then closes the
 * stream. Closing the connection cancels the reply and stops following it.
 */
export function streamAnswer(
  context: OpenAIFaceContext,
  reply: ReplyStream,
  sse: SseStream,
  answer: StreamedAnswer,
): void {
  let content = '';
  const stopCancel = cancelOnAbort(context.messaging, reply, sse.signal);
  const stopFollowing = followReply(reply, {
    text: (piece) => {
      content += piece;
      answer.text(piece);
    },
    end: (final) => {
      stopCancel();
      (answer[final.type] as (part: ReplyFinalPart, content: string) => void)(final, content);
      sse.close();
    },
  });
  sse.signal.addEventListener('abort', stopFollowing, { once: true });
}

/** Token counts of an answer: the model's reported counts, else estimated (4 characters a token). */
export interface TokenUsage {
  input: number;
  output: number;
}

/** An estimate of a text's tokens when the model reported none: a quarter of its characters, rounded up. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * The usage of a reply: what the model service reported for its steps, summed; a count it did not report is
 * estimated from the posted message (input) or the answer's text (output).
 */
export function usageOf(reply: ReplyStream, posted: string, answered: string): TokenUsage {
  return {
    input: reply.usage.inputTokens ?? estimateTokens(posted),
    output: reply.usage.outputTokens ?? estimateTokens(answered),
  };
}

/** A ParleyError whose message says why a reply that ended in error has no answer. */
export function replyFailure(part: { code: ParleyError['code']; message: string }): ParleyError {
  return new ParleyError(part.code, part.message);
}
