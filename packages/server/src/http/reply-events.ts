import { type AgentResponse, ParleyError } from '@parley/core';
import {
  type ReplyEndPart,
  type ReplyFinalPart,
  type ReplyPartHandlers,
  handlePart,
} from '../reply/parts/reply-part';
import type { ReplyStream } from '../reply/parts/reply-stream';
import type { ReplyPosition } from './reply-event-id';
import { toEventId } from './reply-event-id';
import type { SseStream } from './sse-stream';

/**
 * The reply as `done` and `sync` give it: text, actions, tool calls; and, when the agent sent no reply (nothing
 * stored), `empty: true` with the reason, so a client never waits on silence.
 */
export function toAgentResponse(part: ReplyEndPart): AgentResponse {
  const { text, actions, toolCalls, reason, receiptId } = part;
  // `reason` is set exactly when the reply ended deliberately without a message.
  if (reason === undefined) return { text, actions, toolCalls, ...(receiptId && { receiptId }) };
  return { text, actions, toolCalls, empty: true, reason };
}

/** Where a new stream starts: before any text or tool part of the reply. */
export const startOf = (replyId: string): ReplyPosition => ({
  replyId,
  kind: 'text',
  index: -1,
  offset: 0,
  tools: 0,
});

/**
 * The SSE consumer of a reply: after `from`, each text delta as a `chunk` and each tool part as a `tool_call` or
 * `tool_result`, then `done` or `error`, each with an id to resume from. Ends the SSE stream after the last part.
 *
 * Resuming skips the text the client has (chunks up to its index, live; its first `offset` characters, from
 * storage) and its first `tools` tool parts. A reply rebuilt from storage holds its tool parts first, step by
 * step, then its whole text in one delta: the client gets the text after its offset as one chunk, numbered after
 * its last one. A position beyond what the reply has is told once as `gap`.
 *
 * Each approval request is an `approval_request` event (not counted among the tool parts: a stream resumed
 * from a `Last-Event-ID` may repeat one, with the same `toolCallId`; `approvalsSent` holds those this response
 * sent). When the reply pauses for them, `onPause` gets the client's position: the caller follows the reply
 * from there (without it, the stream ends).
 */
export function sendReplyEvents(
  stream: ReplyStream,
  sse: SseStream,
  from: ReplyPosition,
  onPause?: (position: ReplyPosition, approvalsSent: Set<string>) => void,
  approvalsSent = new Set<string>(),
): void {
  const { replyId, restored } = stream;
  const resumed = from.kind === 'text' ? from : undefined;
  // What the client has, as its next event id says: the last chunk's index, the characters, the tool parts.
  let index = resumed?.index ?? -1;
  let offset = resumed?.offset ?? 0;
  let tools = resumed?.tools ?? 0;
  // What the reply has had so far: its last chunk's index and its tool parts.
  let lastIndex = -1;
  let toolParts = 0;
  const position = () => toEventId({ replyId, kind: 'text', index, offset, tools });
  const end = toEventId({ replyId, kind: 'end' });

  let gapTold = false;
  // Resuming from a position outside what is retained: said once, explicitly, before what follows.
  const gap = () => {
    if (gapTold) return;
    gapTold = true;
    sse.send('gap', {
      replyId,
      from: toEventId(from),
      message: 'The stream cannot continue from Last-Event-ID; read the stored reply instead',
    });
  };
  // At the end: a position past the reply's last chunk or tool part is not one this reply ever had.
  const checkReached = () => {
    if (!resumed) return;
    if ((!restored && resumed.index > lastIndex) || resumed.tools > toolParts) gap();
  };
  const skipTools = resumed ? (restored ? storedSkip(stream, resumed.tools) : resumed.tools) : 0;
  const sendTool = (event: 'tool_call' | 'tool_result', data: object) => {
    toolParts += 1;
    if (!resumed || toolParts <= skipTools) return;
    tools = toolParts;
    sse.send(event, data, position());
  };

  const handlers = {
    'reply-start': () => undefined,
    'text-delta': (part) => {
      lastIndex = part.index;
      if (!resumed) return;
      if (restored) {
        // Every tool part of a stored reply comes before its text.
        if (resumed.tools > toolParts) gap();
        if (resumed.offset > part.delta.length) gap();
        if (resumed.offset >= part.delta.length) return;
        index = resumed.index + 1;
        offset = part.delta.length;
        const chunk = part.delta.slice(resumed.offset);
        sse.send('chunk', { messageId: replyId, chunk, index }, position());
        return;
      }
      if (part.index <= resumed.index) return;
      index = part.index;
      offset += part.delta.length;
      sse.send('chunk', { messageId: replyId, chunk: part.delta, index }, position());
    },
    'tool-call': ({ toolCallId, toolName, input }) =>
      sendTool('tool_call', { toolCallId, toolName, input }),
    'tool-result': ({ toolCallId, toolName, output, error }) =>
      sendTool(
        'tool_result',
        // An output JSON cannot hold (none at all) is sent as null: the event always has one of the two.
        error === undefined
          ? { toolCallId, toolName, output: output ?? null }
          : { toolCallId, toolName, error },
      ),
    'approval-request': ({ replyId: id, toolCallId, toolName, input, expiresAt }) => {
      if ((resumed && toolParts < skipTools) || approvalsSent.has(toolCallId)) return;
      approvalsSent.add(toolCallId);
      sse.send(
        'approval_request',
        { replyId: id, toolCallId, toolName, input, expiresAt },
        position(),
      );
    },
    'reply-pause': () => {
      if (!onPause) return sse.close();
      onPause({ replyId, kind: 'text', index, offset, tools }, approvalsSent);
    },
    'reply-end': (part) => {
      checkReached();
      sse.send('done', toAgentResponse(part), end);
      sse.close();
    },
    error: ({ code, message }) => {
      checkReached();
      sse.send('error', { code, message }, end);
      sse.close();
    },
  } satisfies ReplyPartHandlers;

  const unsubscribe = stream.subscribe((part) => handlePart(handlers, part));
  sse.signal.addEventListener('abort', unsubscribe, { once: true });
}

/**
 * How many tool parts of a stored reply a client at `tools` has for sure. Storage keeps each step's results in
 * call order, not in the order they ended (and were sent) in: a count that ends among one step's results is
 * moved back to that step's first result, so that none is lost; the client may get some of them twice (the
 * same `toolCallId`).
 */
function storedSkip(stream: ReplyStream, tools: number): number {
  const parts = stream.parts.filter(
    (part) => part.type === 'tool-call' || part.type === 'tool-result',
  );
  let skip = Math.min(tools, parts.length);
  while (skip > 0 && skip < parts.length) {
    const [had, next] = [parts[skip - 1]!, parts[skip]!];
    if (had.type !== 'tool-result' || next.type !== 'tool-result' || had.step !== next.step) break;
    skip -= 1;
  }
  return skip;
}

/**
 * The one sync wait: the reply's last part, or undefined once `timeoutMs` passed without one (the reply itself
 * goes on, and is stored and broadcast when it ends). `waitForEnd` and the MCP face's call both wait with it.
 */
export async function endWithin(
  reply: ReplyStream,
  timeoutMs: number,
): Promise<ReplyFinalPart | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([reply.ended, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The `sync` consumer: the reply's last part, or its failure as the error. Gives up after `timeoutMs` with
 * TIMEOUT; the reply itself goes on, and is stored and broadcast when it ends.
 */
export async function waitForEnd(
  reply: ReplyStream,
  timeoutMs: number,
): Promise<Exclude<ReplyFinalPart, { type: 'error' }>> {
  const end = await endWithin(reply, timeoutMs);
  if (!end) throw new ParleyError('TIMEOUT', `The agent did not reply within ${timeoutMs} ms`);
  if (end.type === 'error') throw new ParleyError(end.code, end.message);
  return end;
}
