import { type ReplyPartHandlers, handlePart } from '../reply/parts/reply-part';
import type { ReplyStream } from '../reply/parts/reply-stream';

/**
 * The AI SDK's UI message stream chunks Parley sends (a subset of `UIMessageChunk` in the `ai` package, whose
 * `uiMessageChunkSchema` the client checks every chunk against). Written here rather than imported: `ai` is a
 * development dependency of the server, used by the tests that read these chunks with the SDK's own reader.
 */
export type UIMessageChunk =
  | { type: 'start'; messageId: string }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: `data-parley-${string}`; id?: string; data: unknown }
  | { type: 'error'; errorText: string }
  | { type: 'finish'; finishReason: 'stop' | 'error' | 'other' };

/** The header that tells the AI SDK's client the body is a UI message stream. */
export const UI_MESSAGE_STREAM_HEADER = 'x-vercel-ai-ui-message-stream';

/** How a reader of a reply is told the reply's chunks. */
export interface ChunkSink {
  chunk(chunk: UIMessageChunk): void;
  /** The stream has nothing more: the reply ended, paused or failed. */
  end(): void;
}

/**
 * Reads a reply as UI message stream chunks: its start (the reply's id is the UI message's id), Parley's own
 * events as `data-parley-*` parts, its text in text blocks (a block per run of deltas between tool calls), each
 * tool call with its input and then its output or error, an approval request as `tool-approval-request` (its
 * approval id is the call's id), and its end as `finish` (or `error`). `live` reads only this run of a reply that
 * goes on after a pause (the UI already has what came before); `denied` are the calls the person just denied,
 * whose outcome shows as `tool-output-denied`. Returns the unsubscribe function.
 */
export function followAsChunks(
  reply: ReplyStream,
  sink: ChunkSink,
  options: { live: boolean; denied?: ReadonlySet<string> },
): () => void {
  // A text block id unique within the UI message, across runs of a reply that paused.
  const run = reply.liveFrom;
  let blocks = 0;
  let open: string | undefined;
  const closeText = () => {
    if (open === undefined) return;
    sink.chunk({ type: 'text-end', id: open });
    open = undefined;
  };
  const handlers = {
    'reply-start': (part) => {
      sink.chunk({ type: 'start', messageId: part.replyId });
      sink.chunk({
        type: 'data-parley-reply',
        id: `${part.replyId}-reply`,
        data: {
          replyId: part.replyId,
          channelId: part.channelId,
          agentId: part.agentId,
          agentName: part.agentName,
          inReplyTo: part.inReplyTo,
        },
      });
    },
    'text-delta': (part) => {
      if (part.delta === '') return;
      if (open === undefined) {
        open = `${part.replyId}-text-${run}-${blocks++}`;
        sink.chunk({ type: 'text-start', id: open });
      }
      sink.chunk({ type: 'text-delta', id: open, delta: part.delta });
    },
    'tool-call': (part) => {
      closeText();
      sink.chunk({
        type: 'tool-input-available',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input ?? {},
      });
    },
    'approval-request': (part) => {
      sink.chunk({
        type: 'tool-approval-request',
        approvalId: part.toolCallId,
        toolCallId: part.toolCallId,
      });
    },
    'tool-result': (part) => {
      closeText();
      if (part.error === undefined) {
        sink.chunk({
          type: 'tool-output-available',
          toolCallId: part.toolCallId,
          output: part.output ?? null,
        });
      } else if (options.denied?.has(part.toolCallId)) {
        sink.chunk({ type: 'tool-output-denied', toolCallId: part.toolCallId });
      } else {
        sink.chunk({
          type: 'tool-output-error',
          toolCallId: part.toolCallId,
          errorText: part.error,
        });
      }
    },
    'reply-pause': (part) => {
      closeText();
      sink.chunk({
        type: 'data-parley-pause',
        id: `${part.replyId}-pause-${run}`,
        data: {
          replyId: part.replyId,
          requests: part.requests.map((request) => ({
            toolCallId: request.toolCallId,
            toolName: request.toolName,
            expiresAt: request.expiresAt,
          })),
        },
      });
      sink.chunk({ type: 'finish', finishReason: 'other' });
      sink.end();
    },
    'reply-end': (part) => {
      closeText();
      sink.chunk({
        type: 'data-parley-end',
        id: `${part.replyId}-end`,
        data: {
          replyId: part.replyId,
          messageId: part.message?.id ?? null,
          reason: part.reason ?? null,
          receiptId: part.receiptId ?? null,
        },
      });
      sink.chunk({ type: 'finish', finishReason: 'stop' });
      sink.end();
    },
    error: (part) => {
      closeText();
      // The message is the reply's own, safe to show: the cause was logged where it happened.
      sink.chunk({ type: 'error', errorText: `${part.code}: ${part.message}` });
      sink.end();
    },
  } satisfies ReplyPartHandlers;
  const listener = (part: Parameters<typeof handlePart>[1]) => handlePart(handlers, part);
  return options.live ? reply.subscribeLive(listener) : reply.subscribe(listener);
}
