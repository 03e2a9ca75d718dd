/** One dispatched server-sent event. */
export interface SseEvent {
  /** The event type (`message` when the block had no `event:` line). */
  event: string;
  /** The data lines joined with `\n`. */
  data: string;
  /** The last event id at dispatch time (`''` when the stream never set one); it carries over between events. */
  id: string;
}

/** An incremental parser of the `text/event-stream` format. */
export interface SseParser {
  /** Feeds decoded text, split anywhere, and returns the events completed by it. */
  push(text: string): SseEvent[];
  /** The reconnection time the stream asked for with `retry:`, in ms. */
  readonly retry: number | undefined;
}

/**
 * Creates a parser that follows the HTML Standard's event-stream interpretation: `field: value` lines, one
 * optional space after the colon, multi-line `data`, comments (`:` lines such as keep-alives) ignored, `id`
 * persisting across events (and ignored when it holds NUL), `retry` only when all digits, CRLF / CR / LF line
 * endings, a leading BOM dropped, and a block without data not dispatched. Text may be split at any point,
 * including between the CR and LF of one line ending. A block not ended by a blank line is never dispatched,
 * as the standard requires at end of stream.
 *
 * @example
 * const parser = createSseParser();
 * for (const event of parser.push('event: chunk\ndata: {"chunk":"Hi"}\n\n')) handle(event);
 */
export function createSseParser(): SseParser {
  let pending = '';
  let started = false;
  let skipLineFeed = false;
  let eventType = '';
  let data: string[] = [];
  let lastEventId = '';
  let retry: number | undefined;

  function processLine(line: string, out: SseEvent[]) {
    if (line === '') {
      if (data.length > 0) {
        out.push({ event: eventType || 'message', data: data.join('\n'), id: lastEventId });
      }
      data = [];
      eventType = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') eventType = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') {
      if (!value.includes('\0')) lastEventId = value;
    } else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  }

  return {
    get retry() {
      return retry;
    },
    push(text) {
      const out: SseEvent[] = [];
      let input = text;
      if (!started && input.length > 0) {
        started = true;
        if (input.startsWith('\uFEFF')) input = input.slice(1);
      }
      // A CR ended the previous text: an LF opening this one belongs to that line ending.
      if (input.length > 0) {
        if (skipLineFeed && input.startsWith('\n')) input = input.slice(1);
        skipLineFeed = false;
      }
      let buffer = pending + input;
      let start = 0;
      for (let index = 0; index < buffer.length; index++) {
        const character = buffer[index];
        if (character !== '\n' && character !== '\r') continue;
        processLine(buffer.slice(start, index), out);
        if (character === '\r') {
          if (index + 1 === buffer.length) skipLineFeed = true;
          else if (buffer[index + 1] === '\n') index++;
        }
        start = index + 1;
      }
      buffer = buffer.slice(start);
      pending = buffer;
      return out;
    },
  };
}
