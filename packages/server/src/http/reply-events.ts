import type { ReplyPart } from '../messaging/reply-part';
import type { ReplyStream } from '../messaging/reply-stream';
import type { ReplyPosition } from './reply-event-id';
import { toEventId } from './reply-event-id';
import type { SseStream } from './sse-stream';

/** Where a new stream starts: before any text of the reply. */
export const startOf = (replyId: string): ReplyPosition => ({
  replyId,
  kind: 'text',
  index: -1,
  offset: 0,
});

/**
 * The SSE consumer of a reply: each text delta after `from` as a `chunk`, then `done` or `error`, each with an
 * id to resume from. Ends the SSE stream after the last part. A reply rebuilt from storage holds its whole text
 * in one delta: the client gets the text after its offset as one chunk, numbered after its last one.
 */
export function sendReplyEvents(stream: ReplyStream, sse: SseStream, from: ReplyPosition): void {
  let offset = from.kind === 'text' ? from.offset : 0;
  const skipThrough = from.kind === 'text' ? from.index : Number.MAX_SAFE_INTEGER;
  const { replyId } = stream;
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
  let lastIndex = -1;
  const unsubscribe = stream.subscribe((part: ReplyPart) => {
    if (part.type === 'text-delta') lastIndex = part.index;
    else if ((part.type === 'reply-end' || part.type === 'error') && from.kind === 'text') {
      // A position past the reply's last chunk is not one this reply ever had.
      if (!stream.restored && from.index > lastIndex) gap();
    }
    switch (part.type) {
      case 'text-delta': {
        if (stream.restored) {
          if (from.kind === 'text' && from.offset > part.delta.length) gap();
          if (from.kind !== 'text' || from.offset >= part.delta.length) return;
          const index = from.index + 1;
          const id = toEventId({ replyId, kind: 'text', index, offset: part.delta.length });
          sse.send(
            'chunk',
            { messageId: replyId, chunk: part.delta.slice(from.offset), index },
            id,
          );
          return;
        }
        if (part.index <= skipThrough) return;
        offset += part.delta.length;
        const id = toEventId({ replyId, kind: 'text', index: part.index, offset });
        sse.send('chunk', { messageId: replyId, chunk: part.delta, index: part.index }, id);
        return;
      }
      case 'reply-end':
        sse.send(
          'done',
          { text: part.text, actions: part.actions },
          toEventId({ replyId, kind: 'end' }),
        );
        break;
      case 'error':
        sse.send(
          'error',
          { code: part.code, message: part.message },
          toEventId({ replyId, kind: 'end' }),
        );
        break;
      default:
        return;
    }
    sse.close();
  });
  sse.signal.addEventListener('abort', unsubscribe, { once: true });
}
