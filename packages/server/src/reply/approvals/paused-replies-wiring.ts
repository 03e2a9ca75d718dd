import type { Logger } from 'pino';
import type { AgentRegistry } from '../../agents/agent-registry';
import { DEFAULTS } from '../../defaults';
import { continueModelReply } from './continue-reply';
import type { ModelReplyContext } from '../loop/loop-types';
import type { ReplyStream } from '../parts/reply-stream';
import type { MessageStore } from '../../storage/message-store';
import type { ApprovalStore } from './approval-store';
import { PausedReplies, type OnApprovalDecided } from './paused-replies';

/**
 * Where replies that wait for approvals are kept, who is told of decisions, and the bounds (default
 * `DEFAULTS.approvals`): the messaging service's `approvals` option.
 */
export type ApprovalsOptions = { store: ApprovalStore; onDecided?: OnApprovalDecided } & Partial<
  Record<keyof typeof DEFAULTS.approvals, number>
>;

/** The replies running in this process, by id (the messaging service's registry). */
export interface HeldReplies {
  get(replyId: string): { stream: ReplyStream } | undefined;
  /** The server stops: no reply is taken on. */
  readonly stopped: boolean;
}

/** What the coordinator of paused replies takes from the messaging service. */
export interface PausedRepliesWiring {
  approvals: ApprovalsOptions;
  messages: MessageStore;
  agents: AgentRegistry;
  logger: Logger;
  replies: HeldReplies;
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
