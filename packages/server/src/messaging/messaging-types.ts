import type { AfterReply } from '../reply/loop/loop-types';
import type { ConversationWindows } from '../memory/summary/conversation-window';
import type { Recaller } from '../memory/recall';
import type { AttachmentStore } from '../attachments/attachment-store';
import type { IfBusy, StoredMessage } from '@parley/core';
import type { Logger } from 'pino';
import type { AgentProfile } from '../agents/agent-profile';
import type { AgentAbilities } from '../agents/agent-abilities';
import type { AgentRegistry } from '../agents/agent-registry';
import type { ModelProvider } from '../models/model-provider';
import type { AgentLoopLimits } from '../reply/loop/loop-limits';
import type { ReplyExtractor } from '../reply/loop/reply-extractor';
import type { ReplyConsumer, ReplyStream } from '../reply/parts/reply-stream';
import type { MessageStore } from '../storage/message-store';
import type { ReplyTelemetry } from '../tracing/reply-telemetry';
import type { ChannelSequencer } from './channel-sequencer';
import type { IdempotencyRecords } from './idempotency';
import type { ApprovalsOptions } from '../reply/approvals/paused-replies-wiring';
import type { ReplyLimits } from './reply-admission';
import type { RoomBroadcaster } from '../reply/delivery/room-broadcaster';

/** The messaging service's inputs, outputs and options (see `messaging-service.ts`). */

/** A user message entering a channel through REST or the socket. */
export interface UserMessageInput {
  channelId: string;
  serverId?: string;
  text: string;
  entityId: string;
  senderName?: string;
  source: string;
  metadata?: Record<string, unknown>;
  /** Client-chosen id (socket clients use it to match their own broadcast). */
  messageId?: string;
  /** The agent that should answer; default: the channel's agent, else the default agent. */
  agentId?: string;
  /**
   * The client's idempotency key: the request takes effect once per channel, entity and key, whatever the
   * process and however many tries arrive together. Another request under the same key is a CONFLICT.
   */
  idempotencyKey?: string;
  /** How the caller takes the reply (`stream`, `sync`, `websocket`): part of what an idempotent request asks. */
  delivery?: string;
  /** While a reply to the channel runs (default: the agent's character `ifBusy`, else `enqueue`). */
  ifBusy?: IfBusy;
  /**
   * The channel as this request's access check read it (`ChannelSeen`: its agent, or null when it does not exist
   * yet), so that its agent is not read again; undefined: read it.
   */
  channel?: { agentId: string | null } | null;
}

/** What a process answers about a reply it was asked to cancel. */
export type CancelOutcome = 'cancelled' | 'ended' | 'unknown';

/**
 * The other processes of the cluster, for what only the process holding a reply can do. Each call asks them
 * all and gathers their answers; an unreachable process answers nothing.
 */
export interface ReplyPeers {
  /** Has the process running `replyId` cancel it; each process's `MessagingService.cancelHere` answer. */
  cancel(replyId: string, channelId: string | undefined): Promise<CancelOutcome[]>;
  /** Cancels every reply of `channelId` running in another process; how many were. */
  interrupt(channelId: string): Promise<number>;
  /** Whether a reply of `channelId` is waiting or running in another process. */
  busy(channelId: string): Promise<boolean>;
}

/** The error part a cancelled reply ends with. */
export const CANCELLED_MESSAGE = 'The reply was cancelled';

/** A user message posted and the reply to it started: what the one conversation entry returns. */
export interface Conversation {
  message: StoredMessage;
  agent: AgentProfile;
  /** The reply's part stream: the room already receives it; callers subscribe for their own delivery. */
  reply: ReplyStream;
  /** True when an earlier try of the same idempotent request posted the message (and started the reply). */
  replayed: boolean;
}

/** What the messaging service needs. */
export interface MessagingServiceOptions {
  store: MessageStore;
  agents: AgentRegistry;
  model: ModelProvider;
  logger: Logger;
  /** Where stored user messages and control messages go to the clients of a room. */
  broadcaster: RoomBroadcaster;
  /** Every new reply is handed to each of these when it starts (the room's delivery, the metrics). */
  consumers?: readonly ReplyConsumer[];
  /** The secret and the first request of each idempotency key (without it, keys are refused). */
  idempotency?: IdempotencyRecords;
  limits?: Partial<ReplyLimits>;
  /** How many earlier messages of the channel the model sees (default 20). */
  historyLimit?: number;
  /** Extractor for each reply (default: `createReplyExtractor`). */
  createExtractor?: () => ReplyExtractor;
  /**
   * Orders replies per channel (default: an in-process queue). Processes sharing a database pass one sequencer
   * on it, so that a channel's replies keep one order whichever process received its messages.
   */
  sequencer?: ChannelSequencer;
  /** How long a finished reply stays resumable from memory (default 10 s); stored replies resume from storage. */
  replyLingerMs?: number;
  /** The other processes sharing the database (a cancel reaches the one holding the reply). */
  peers?: ReplyPeers;
  /** What each agent can do (its plugins' actions, providers, evaluators); none: agents only talk. */
  abilitiesOf?: (agentId: string) => AgentAbilities | undefined;
  /** Bounds of each reply's loop of model and tool calls (default `DEFAULTS.agentLoop`). */
  loopLimits?: Partial<AgentLoopLimits>;
  /** Values no tool result may show (the server's keys), besides each agent's own secrets. */
  serverSecrets?: readonly string[];
  /**
   * Where replies that wait for approvals are kept, and their bounds (default `DEFAULTS.approvals`). Without
   * it, a call that needs approval is refused.
   */
  approvals?: ApprovalsOptions;
  /** Spans and metrics of each reply, its model calls and tool calls (default: none). */
  telemetry?: ReplyTelemetry;
  /**
   * `false` leaves out every use of the trace context (what a queued reply carries, the reply id on the
   * starting span): the "no tracing code" baseline the bench compares tracing off against. Default: used.
   */
  traceContext?: boolean;
  /** Where uploaded files are: the model reads the ones a message lists (default: none, only named). */
  attachments?: AttachmentStore;
  /** The receipt id of a stored reply, told in its end part, when the server signs receipts (default: none). */
  receiptIdOf?: (messageId: string) => string | undefined;
  /** Keeps prompts within their token budget with a running summary (default: the last messages, cut). */
  conversation?: ConversationWindows;
  /** Called once each reply is stored, e.g. to extract facts about the speaker (default: none). */
  afterReply?: readonly AfterReply[];
  /** What each reply recalls into its prompt (knowledge, facts about the speaker); see memory/recall.ts. */
  recallers?: readonly Recaller[];
}
