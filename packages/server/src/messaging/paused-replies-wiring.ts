import type { Logger } from 'pino';
import type { AgentRegistry } from '../agents/agent-registry';
import { DEFAULTS } from '../defaults';
import { continueModelReply } from '../reply/approvals/continue-reply';
import type { ModelReplyContext } from '../reply/loop/produce-model-reply';
import type { ReplyStream } from '../reply/parts/reply-stream';
import type { MessageStore } from '../storage/message-store';
import type { MessagingServiceOptions } from './messaging-types';
import { PausedReplies } from './paused-replies';
import type { ReplyRegistry } from './reply-registry';

/** What the coordinator of paused replies takes from the messaging service. */
export interface PausedRepliesWiring {
  approvals: NonNullable<MessagingServiceOptions['approvals']>;
  messages: MessageStore;
  agents: AgentRegistry;
  logger: Logger;
  replies: ReplyRegistry;
  /** The agent loop's context, less the signal. */
  replyContext: Omit<ModelReplyContext, 'signal'>;
  /** Publishes `stream` and runs `produce` in the channel's turn, in the trace `storedContext` names. */
  run(
    stream: ReplyStream,
    produce: (signal: AbortSignal) => Promise<void>,
    storedContext: unknown,
  ): void;
}

/** The coordinator of paused replies, with the service's registry, queue and agent loop. */
export function createPausedReplies(wiring: PausedRepliesWiring): PausedReplies {
  const { approvals, messages, agents, logger, replies, replyContext } = wiring;
  return new PausedReplies({
    store: approvals.store,
    messages,
    agents,
    logger,
    leaseMs: approvals.leaseMs ?? DEFAULTS.approvals.leaseMs,
    sweepMs: approvals.sweepMs ?? DEFAULTS.approvals.sweepMs,
    followPollMs: approvals.followPollMs ?? DEFAULTS.approvals.followPollMs,
    held: (replyId) => replies.get(replyId)?.stream,
    stopped: () => replies.stopped,
    onDecided: approvals.onDecided,
    run: (stream, _agent, produce, storedContext) => wiring.run(stream, produce, storedContext),
    continueReply: (stream, agent, userMessage, checkpoint, decisions, signal) =>
      continueModelReply(
        { ...replyContext, signal },
        stream,
        agent,
        userMessage,
        checkpoint,
        decisions,
      ),
  });
}
