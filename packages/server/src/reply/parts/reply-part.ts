import type { ErrorCode, StoredMessage } from '@parley/core';

/** The first part of every reply: who answers, where, and to what. */
export interface ReplyStartPart {
  type: 'reply-start';
  replyId: string;
  channelId: string;
  agentId: string;
  agentName: string;
  /** The message being answered; null for a message an agent posts on its own (plugins, schedules). */
  inReplyTo: string | null;
}

/** A piece of the reply's text, in order; `index` counts from 0. */
export interface TextDeltaPart {
  type: 'text-delta';
  replyId: string;
  delta: string;
  index: number;
}

/** The reply ended: stored (`message`), or deliberately empty (`message` null, `reason` says why). */
export interface ReplyEndPart {
  type: 'reply-end';
  replyId: string;
  message: StoredMessage | null;
  text: string;
  actions: string[];
  thought: string | undefined;
  /** Why nothing was stored, when `message` is null. */
  reason?: 'ignored' | 'empty';
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
 * then exactly one of `reply-end` or `error`. A stream never throws: a failure is its last part.
 */
export type ReplyPart = ReplyStartPart | TextDeltaPart | ReplyEndPart | ReplyErrorPart;

/** The part a reply ends with. */
export type ReplyFinalPart = ReplyEndPart | ReplyErrorPart;
