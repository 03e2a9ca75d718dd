import type { StoredMessage, ToolCallRecord } from '@parley/core';
import type { Content, Memory, State } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { AgentAbilities, AgentAction } from '../../agents/agent-abilities';
import type { AgentProfile } from '../../agents/agent-profile';
import type { AttachmentStore } from '../../attachments/attachment-store';
import type { RecallSource, Recaller } from '../../memory/recall';
import type { ConversationWindows } from '../../memory/summary/conversation-window';
import type { ModelMessage, ModelProvider } from '../../models/model-provider';
import type { MessageStore } from '../../storage/message-store';
import type { ReplyTelemetry } from '../../tracing/reply-telemetry';
import type { ApprovalStore } from '../approvals/approval-store';
import type { ReplyStream } from '../parts/reply-stream';
import type { ToolCallOutcome, ToolCallRequest, ToolRunContext } from '../tools/run-tool-call';
import type { AgentLoopLimits } from './loop-limits';
import type { ModelStepResult } from './model-step';
import type { ReplyExtractor } from './reply-extractor';

/**
 * The types a reply's loop shares with what pauses and continues it: types only, importing none of the loop's
 * files, so that `produce-model-reply.ts`, `loop-setup.ts`, `run-agent-loop.ts` and `approvals/pause-reply.ts`
 * each import them from here and none of them imports another back.
 */

/** Work after a stored reply to `message`, queued off the reply's path (see `ModelReplyContext.afterReply`). */
export type AfterReply = (
  agent: AgentProfile,
  message: StoredMessage,
  reply: StoredMessage,
) => void;

/** Where paused replies are kept, and how long a request waits. */
export interface ReplyPauses {
  store: ApprovalStore;
  /** How long an approval request waits for a decision before the call is refused. */
  timeoutMs: number;
}

/** What producing a model reply needs. */
export interface ModelReplyContext {
  store: MessageStore;
  model: ModelProvider;
  logger: Logger;
  /** How many earlier messages of the channel the model sees. */
  historyLimit: number;
  createExtractor: () => ReplyExtractor;
  /**
   * The reply's own signal (its controller in the reply registry, which a stop of the server aborts): the reply
   * then ends with an error part.
   */
  signal: AbortSignal;
  /** What an agent can do: its actions, providers and evaluators (none: it only talks). */
  abilitiesOf?: (agentId: string) => AgentAbilities | undefined;
  /** The server's loop bounds; each agent's character may override them. */
  loopLimits: AgentLoopLimits;
  /** Posts content into the channel as the agent, in answer to `inReplyTo` (an action's `callback`). */
  postAsAgent?: (
    agent: AgentProfile,
    content: Content,
    inReplyTo: StoredMessage,
  ) => Promise<Memory[]>;
  /** Values no tool result may show besides each agent's own secrets (the server's keys). */
  serverSecrets?: readonly string[];
  /** Uploaded files: the model reads those its history's messages list (`metadata.attachments`). */
  attachments?: AttachmentStore;
  /**
   * Where a reply that waits for approvals is stored. Without it, a call that needs approval is refused (the
   * model is told).
   */
  pauses?: ReplyPauses;
  /** Spans and metrics of the reply, its model calls and tool calls (default: none). */
  telemetry?: ReplyTelemetry;
  /**
   * Called at once before the reply is stored: from then on a cancel answers CONFLICT and the reply stands (a
   * cancel before it stored nothing). Without it, a cancel during the store would end a reply that is stored.
   */
  beginStore?: (replyId: string) => void;
  /** The receipt id of a stored reply, when the server signs receipts (undefined: none). */
  receiptIdOf?: (messageId: string) => string | undefined;
  /** Keeps the prompt within its token budget, older turns in a running summary (none: the last messages). */
  conversation?: ConversationWindows;
  /**
   * Called once a reply is stored (facts about the speaker are extracted): each queues its work off the reply's
   * path and returns at once; none may throw.
   */
  afterReply?: readonly AfterReply[];
  /** What each reply recalls into its `# Context` (knowledge, facts about the speaker); none: nothing runs. */
  recallers?: readonly Recaller[];
}

/** What every step of one reply's loop reads: the history, the agent's abilities, bounds and offered actions. */
export interface LoopSetup {
  history: StoredMessage[];
  /** Absent for an agent that only talks. */
  abilities: AgentAbilities | undefined;
  limits: AgentLoopLimits;
  /** The message being answered, as actions see it. */
  message: Memory;
  /** A new state for each model call (a handler may change the one it is given). */
  compose: () => Promise<State>;
  /** The actions offered for the message. */
  actions: AgentAction[];
  /** What running a call needs, for the state of its step. */
  toolContext: (state: State, offered: readonly AgentAction[]) => ToolRunContext;
  /** The running summary of the channel's turns before `history` (none: the whole channel is in it). */
  summary?: string;
  /** The character's system prompt, as counted against the prompt's token budget. */
  systemPrompt: string;
  /** What the recallers used (knowledge, facts), recorded on the stored reply as `raw_message.sources`. */
  sources: RecallSource[];
}

/** Where a reply's loop stands: what it has said and done. Plain JSON: a paused reply stores it. */
export interface LoopProgress {
  /** The reply's text exactly as streamed (separators included), so that a resume from storage lines up. */
  text: string;
  /** The next text delta's index. */
  index: number;
  /** The model turns after the prompt: its calls and their results. */
  steps: ModelMessage[];
  records: ToolCallRecord[];
  /** The declared names of the actions that ran, in call order. */
  ran: string[];
  /** The next step's number. */
  step: number;
  /** The next step is the last: the model is asked to answer without tools. */
  lastStepNext: boolean;
}

/** A step that waits for approvals: the model's turn, and each call's outcome (null while it waits). */
export interface PausedStep {
  step: number;
  /** The model's text in that step. */
  content: string;
  calls: ToolCallRequest[];
  outcomes: (ToolCallOutcome | null)[];
}

/** How a loop ended: the model answered without calls, or a step waits for approvals. */
export type LoopOutcome =
  { kind: 'answered'; last: ModelStepResult } | { kind: 'paused'; paused: PausedStep };

/** One run of a reply's loop: what ending it (storing the reply, or pausing it) reads. */
export interface LoopRun {
  context: ModelReplyContext;
  setup: LoopSetup;
  agent: AgentProfile;
  stream: ReplyStream;
  /** The message the reply answers. */
  userMessage: StoredMessage;
  progress: LoopProgress;
}
