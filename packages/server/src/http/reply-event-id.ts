import { isUuid } from '@parley/core';

/**
 * Where a client is in a reply's event stream, as carried in each SSE `id:`. The id names the reply and, before
 * the end, the last text chunk's index and how many characters of text the client has (enough to resume from
 * memory, by index, and from storage, by offset, once the chunks are gone), and how many tool parts it has:
 * `tool_call` and `tool_result` events, each counted.
 */
export type ReplyPosition =
  | { replyId: string; kind: 'text'; index: number; offset: number; tools: number }
  | { replyId: string; kind: 'end' };

const COUNT = /^(?:-1|0|[1-9][0-9]{0,8})$/;
const TOOLS = /^[1-9][0-9]{0,8}$/;

/**
 * The `id:` of an event: `<replyId>:<index>:<offset>` (index -1 and offset 0 before any text), with a fourth
 * field `:<tools>` once the client has had at least one tool part, and `<replyId>:end` at the end.
 */
export function toEventId(position: ReplyPosition): string {
  if (position.kind === 'end') return `${position.replyId}:end`;
  const text = `${position.replyId}:${position.index}:${position.offset}`;
  return position.tools > 0 ? `${text}:${position.tools}` : text;
}

/**
 * Reads a `Last-Event-ID`; undefined when it is not one of Parley's. Only the form {@link toEventId} writes is
 * read: the tool count, when present, is at least 1 (no `:0`, no sign, no leading zero).
 */
export function parseEventId(value: string | undefined): ReplyPosition | undefined {
  const [replyId = '', index, offset, tools, extra] = (value ?? '').split(':');
  if (!isUuid(replyId) || extra !== undefined) return undefined;
  if (index === 'end' && offset === undefined) {
    return { replyId: replyId.toLowerCase(), kind: 'end' };
  }
  if (index === undefined || offset === undefined) return undefined;
  if (!COUNT.test(index) || !COUNT.test(offset) || offset === '-1') return undefined;
  if (tools !== undefined && !TOOLS.test(tools)) return undefined;
  return {
    replyId: replyId.toLowerCase(),
    kind: 'text',
    index: Number(index),
    offset: Number(offset),
    tools: tools === undefined ? 0 : Number(tools),
  };
}
