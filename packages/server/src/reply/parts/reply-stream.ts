import { type StoredMessage, toolCallRecordSchema } from '@parley/core';
import {
  isFinalPart,
  type ReplyFinalPart,
  type ReplyPart,
  type ToolCallRecord,
} from './reply-part';

/** Receives each part of a reply, in order. */
export type ReplyListener = (part: ReplyPart) => void;

/**
 * Something that every new reply is handed to when it starts (the room, the metrics): given to the messaging
 * service at construction, so that messaging depends on none of them.
 */
export type ReplyConsumer = (reply: ReplyStream) => void;

/**
 * One reply's parts, kept in order and handed to every consumer: the room, an SSE response, a `sync` request,
 * a client resuming. A consumer that subscribes late first receives what it missed, then the rest live, so
 * every consumer sees the same sequence. Listeners run synchronously, in subscription order; one that throws
 * does not stop the others or the producer.
 */
export class ReplyStream {
  readonly replyId: string;
  readonly channelId: string;
  /** The message this reply answers, or null for a message an agent posts on its own. */
  readonly inReplyTo: string | null;
  /** Resolves with the last part, once the reply has ended. */
  readonly ended: Promise<ReplyFinalPart>;
  /**
   * Rebuilt from a stored message ({@link ReplyStream.ofStored}): its whole text is one delta, so a client
   * resuming it is told what it lacks by its character offset, not by the chunk index of the original stream.
   */
  readonly restored: boolean;
  /**
   * Where this run of the reply starts among its parts: 0, or, for a reply going on after a pause, the number of
   * parts it had before (see {@link ReplyStream.continuing}).
   */
  readonly liveFrom: number;
  /**
   * The tokens this run of the reply used, summed over its model steps as the model service reported them (a
   * count stays undefined while no step reported it). Read by faces that answer with usage (`/v1`).
   */
  readonly usage: { inputTokens?: number; outputTokens?: number } = {};
  /** Set for a reply that answers its message again (Regenerate): stored with `metadata.regenerated`. */
  regenerated = false;
  readonly #parts: ReplyPart[] = [];
  readonly #listeners = new Set<ReplyListener>();
  #end!: (part: ReplyFinalPart) => void;
  #final: ReplyFinalPart | undefined;

  constructor(
    replyId: string,
    channelId: string,
    inReplyTo: string | null,
    restored = false,
    earlier: readonly ReplyPart[] = [],
  ) {
    this.replyId = replyId;
    this.channelId = channelId;
    this.inReplyTo = inReplyTo;
    this.restored = restored;
    this.ended = new Promise((resolve) => (this.#end = resolve));
    this.#parts.push(...earlier.filter((part) => !isFinalPart(part)));
    this.liveFrom = this.#parts.length;
  }

  /**
   * A reply going on after a pause, under its id: it holds the parts it had before (`earlier`, its start first),
   * so that a client reading it from the start, or resuming from an event id, sees one reply; consumers that
   * deliver what is new read it with {@link subscribeLive}.
   */
  static continuing(
    replyId: string,
    channelId: string,
    inReplyTo: string | null,
    earlier: readonly ReplyPart[],
  ): ReplyStream {
    return new ReplyStream(replyId, channelId, inReplyTo, false, earlier);
  }

  /**
   * The one way a stored message becomes a reply's parts: its author's start, its whole text as one delta,
   * then its end. An agent's post (a plugin's, a scheduled one) is delivered this way, and a finished reply
   * read again (a retry, a resumed stream) is rebuilt this way.
   */
  static ofStored(message: StoredMessage): ReplyStream {
    const stream = new ReplyStream(message.id, message.channel_id, message.in_reply_to, true);
    for (const part of storedReplyParts(message)) stream.write(part);
    return stream;
  }

  /** Adds one model step's reported tokens to {@link usage}. */
  addUsage(step: { inputTokens?: number; outputTokens?: number } | undefined): void {
    if (step?.inputTokens !== undefined) {
      this.usage.inputTokens = (this.usage.inputTokens ?? 0) + step.inputTokens;
    }
    if (step?.outputTokens !== undefined) {
      this.usage.outputTokens = (this.usage.outputTokens ?? 0) + step.outputTokens;
    }
  }

  /** The last part, once the reply has ended. */
  get final(): ReplyFinalPart | undefined {
    return this.#final;
  }

  /** Appends a part and hands it to every listener. Parts after the last one are dropped. */
  write(part: ReplyPart): void {
    if (this.#final) return;
    this.#parts.push(part);
    if (isFinalPart(part)) {
      this.#final = part;
      this.#end(part);
    }
    for (const listener of this.#listeners) deliver(listener, part);
    if (this.#final) this.#listeners.clear();
  }

  /**
   * Hands `listener` every part from the `from`-th on (what is already there at once), then each new part.
   * Returns the unsubscribe function.
   */
  subscribe(listener: ReplyListener, from = 0): () => void {
    for (let i = from; i < this.#parts.length; i += 1) deliver(listener, this.#parts[i]!);
    if (this.#final) return () => undefined;
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Hands `listener` the reply's start, then the parts of this run only (all of them for a reply that did not
   * pause): what a consumer that delivers each part once (the room, the metrics) reads.
   */
  subscribeLive(listener: ReplyListener): () => void {
    if (this.liveFrom > 0 && this.#parts[0]) deliver(listener, this.#parts[0]);
    return this.subscribe(listener, this.liveFrom);
  }

  /** The parts so far. */
  get parts(): readonly ReplyPart[] {
    return this.#parts;
  }
}

function deliver(listener: ReplyListener, part: ReplyPart) {
  try {
    listener(part);
  } catch {
    // A consumer's failure is its own (a closed response, say); the reply and the other consumers go on.
  }
}

/**
 * The parts of a reply rebuilt from its stored message (see {@link ReplyStream.ofStored}): its start, its
 * recorded tool calls (`raw_message.toolCalls`), then its whole text as one delta, then its end. The calls go as
 * the live reply told them: step by step, each step's `tool-call` parts, then their `tool-result` parts (in
 * call order; storage does not keep the order they ended in). A record without its step is a step of its own.
 * A record that is not one (a message stored by hand, an older shape) is left out.
 */
export function storedReplyParts(message: StoredMessage): ReplyPart[] {
  const replyId = message.id;
  const { thought, actions = ['REPLY'], toolCalls: stored } = message.raw_message ?? {};
  const toolCalls = storedToolCalls(stored);
  const parts: ReplyPart[] = [
    {
      type: 'reply-start',
      replyId,
      channelId: message.channel_id,
      agentId: message.author_id,
      agentName: message.author_name,
      inReplyTo: message.in_reply_to,
    },
  ];
  for (const { step, records } of bySteps(toolCalls)) {
    for (const { toolCallId, toolName, input } of records) {
      parts.push({ type: 'tool-call', replyId, toolCallId, toolName, input, step });
    }
    for (const { toolCallId, toolName, output, error } of records) {
      const outcome = error === undefined ? { output } : { error };
      parts.push({ type: 'tool-result', replyId, toolCallId, toolName, ...outcome, step });
    }
  }
  parts.push(
    { type: 'text-delta', replyId, delta: message.content, index: 0 },
    { type: 'reply-end', replyId, message, text: message.content, actions, thought, toolCalls },
  );
  return parts;
}

/** Consecutive records of one step together; a record without a step alone, numbered after the one before. */
function bySteps(records: readonly ToolCallRecord[]) {
  const steps: { step: number; recorded: boolean; records: ToolCallRecord[] }[] = [];
  for (const record of records) {
    const last = steps.at(-1);
    if (last?.recorded && last.step === record.step) last.records.push(record);
    else {
      const step = record.step ?? (last ? last.step + 1 : 0);
      steps.push({ step, recorded: record.step !== undefined, records: [record] });
    }
  }
  return steps;
}

/** The well-formed records of a stored `raw_message.toolCalls`, in order; anything else is dropped. */
export function storedToolCalls(value: unknown): ToolCallRecord[] {
  if (!Array.isArray(value)) return [];
  const records: ToolCallRecord[] = [];
  for (const item of value) {
    const parsed = toolCallRecordSchema.safeParse(item);
    if (parsed.success) records.push(parsed.data);
  }
  return records;
}
