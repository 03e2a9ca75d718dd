import { isUuid } from '@parley/core';

/**
 * Where a client is in a reply's event stream, as carried in each SSE `id:`. The id names the reply and, for
 * text, the last chunk's index and how many characters of text the client has: enough to resume from memory
 * (by index) and from storage (by offset, once the chunks are gone).
 */
export type ReplyPosition =
  | { replyId: string; kind: 'text'; index: number; offset: number }
  | { replyId: string; kind: 'end' };

const COUNT = /^(?:-1|0|[1-9][0-9]{0,8})$/;

/** The `id:` of an event: `<replyId>:<index>:<offset>` after text (index -1 before any), `<replyId>:end` at the end. */
export function toEventId(position: ReplyPosition): string {
  return position.kind === 'end'
    ? `${position.replyId}:end`
    : `${position.replyId}:${position.index}:${position.offset}`;
}

/** Reads a `Last-Event-ID`; undefined when it is not one of Parley's. */
export function parseEventId(value: string | undefined): ReplyPosition | undefined {
  const [replyId = '', index, offset, extra] = (value ?? '').split(':');
  if (!isUuid(replyId) || extra !== undefined) return undefined;
  if (index === 'end' && offset === undefined) {
    return { replyId: replyId.toLowerCase(), kind: 'end' };
  }
  if (index === undefined || offset === undefined) return undefined;
  if (!COUNT.test(index) || !COUNT.test(offset) || offset === '-1') return undefined;
  return {
    replyId: replyId.toLowerCase(),
    kind: 'text',
    index: Number(index),
    offset: Number(offset),
  };
}
