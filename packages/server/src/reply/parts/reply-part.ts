import type { ApprovalRequest, ErrorCode, StoredMessage, ToolCallRecord } from '@parley/core';

/** The first part of every reply: who answers, where, and to what. */
export interface ReplyStartPart {
  type: 'reply-start';
  replyId: string;
  channelId: string;
  agentId: string;
  agentName: string;
  /** The message being answered; null for a message an agent posts on its own (plugins, schedules). */
  inReplyTo: string | null;
  /** Where the answered message came from (its `source_type`, e.g. `client_chat` from elizaOS's web client). */
  source?: string;
}

/** A piece of the reply's text, in order; `index` counts from 0. */
export interface TextDeltaPart {
  type: 'text-delta';
  replyId: string;
  delta: string;
  index: number;
}

/**
 * The model called a tool (an action) in step `step` (counting from 0): sent once the call is complete, before
 * it runs. `input` is the parsed arguments (the raw text when they were not JSON).
 */
export interface ToolCallPart {
  type: 'tool-call';
  replyId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  step: number;
}

/**
 * A tool call's outcome: its `output` (what the model is given back), or `error` when it failed, timed out,
 * was refused or got invalid input. Either way the model sees it and the reply goes on.
 */
export interface ToolResultPart {
  type: 'tool-result';
  replyId: string;
  toolCallId: string;
  toolName: string;
  output?: unknown;
  error?: string;
  step: number;
}

/**
 * A call of step `step` needs a person's approval before it runs (its action's `needsApproval`): sent after its
 * `tool-call`. Its `tool-result` follows the decision: the action's outcome when approved, an error when denied
 * or expired.
 */
export interface ApprovalRequestPart extends ApprovalRequest {
  type: 'approval-request';
  step: number;
  /** Only an approver (or an admin) may decide it: its action says `approvalBy: 'approver'`. */
  approverOnly?: true;
}

/**
 * The reply paused for its approval requests: it is stored, not held, and this run of it ends here. It goes on,
 * under the same reply id, as a new stream (`ReplyStream.continuing`) once every request is decided or expired.
 * `text` and `toolCalls` are what it has so far; `requests` what it waits for.
 */
export interface ReplyPausePart {
  type: 'reply-pause';
  replyId: string;
  text: string;
  toolCalls: ToolCallRecord[];
  requests: ApprovalRequest[];
}

/** A tool call with its outcome, as stored with the reply and given in `sync` answers and webhooks (core's). */
export type { ToolCallRecord } from '@parley/core';

/** The reply ended: stored (`message`), or deliberately empty (`message` null, `reason` says why). */
export interface ReplyEndPart {
  type: 'reply-end';
  replyId: string;
  message: StoredMessage | null;
  text: string;
  actions: string[];
  thought: string | undefined;
  /** The tool calls of the reply with their outcomes, in the order they were made. */
  toolCalls: ToolCallRecord[];
  /** Why nothing was stored, when `message` is null. */
  reason?: 'ignored' | 'empty';
  /** The id of the stored reply's receipt, when the server signs receipts (a TEE is on). */
  receiptId?: string;
}

/** The reply failed. The message is safe to show a client; the cause was logged once, where it happened. */
export interface ReplyErrorPart {
  type: 'error';
  replyId: string;
  code: ErrorCode;
  message: string;
}

/**
 * One part of a reply. A reply is one ordered stream of parts: `reply-start`, any number of `text-delta`,
 * `tool-call`, `approval-request` and `tool-result` (each call's result after its call), then exactly one of
 * `reply-end`, `error` or `reply-pause` (the reply goes on later, in a stream of its own). A stream never throws: a failure is its last part. A consumer handles every type; the compiler checks
 * it through {@link ReplyPartHandlers}.
 */
export type ReplyPart =
  | ReplyStartPart
  | TextDeltaPart
  | ToolCallPart
  | ApprovalRequestPart
  | ToolResultPart
  | ReplyEndPart
  | ReplyErrorPart
  | ReplyPausePart;

/**
 * A handler for each part type, by type: a consumer written as `{…} satisfies ReplyPartHandlers` fails to
 * compile when a part type is added and it does not handle it.
 */
export type ReplyPartHandlers = {
  [Type in ReplyPart['type']]: (part: Extract<ReplyPart, { type: Type }>) => void;
};

/** Calls the handler of `part`'s type. */
export function handlePart(handlers: ReplyPartHandlers, part: ReplyPart): void {
  (handlers[part.type] as (part: ReplyPart) => void)(part);
}

/** The part a reply's stream ends with. */
export type ReplyFinalPart = ReplyEndPart | ReplyErrorPart | ReplyPausePart;

/** Whether `part` ends a stream. */
export function isFinalPart(part: ReplyPart): part is ReplyFinalPart {
  return part.type === 'reply-end' || part.type === 'error' || part.type === 'reply-pause';
}
