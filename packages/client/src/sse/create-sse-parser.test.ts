import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SseEvent, createSseParser } from './create-sse-parser';
import { readSseEvents } from './read-sse-events';

/** Parses `parts` in order with one parser. */
function parseParts(parts: string[]) {
  const parser = createSseParser();
  const events = parts.flatMap((part) => parser.push(part));
  return { events, retry: parser.retry };
}

/** Cuts `text` at the given positions (any order, duplicates allowed). */
function splitAt(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let previous = 0;
  for (const point of points) {
    parts.push(text.slice(previous, point));
    previous = point;
  }
  parts.push(text.slice(previous));
  return parts;
}

/** Text built from the pieces that matter to the grammar, so that random strings hit every branch. */
const streamText = fc
  .array(
    fc.constantFrom(
      '\n',
      '\r',
      '\r\n',
      ':',
      ' ',
      'data',
      'data:',
      'event:',
      'id:',
      'retry:',
      '12',
      'x',
      'é',
      '😀',
      '\0',
      '\uFEFF',
    ),
    { maxLength: 60 },
  )
  .map((pieces) => pieces.join(''));

const lineEnding = fc.constantFrom('\n', '\r', '\r\n');
// Values a server can write: no line breaks, and no leading space (one after the colon is syntax).
const safeValue = fc.string({ maxLength: 12 }).filter((value) => !/^ |[\r\n]/.test(value));

/** An event as a server means it, and a serialisation of it with any line endings and comments. */
const modelEvent = fc.record({
  event: fc.option(
    safeValue.filter((value) => value !== ''),
    { nil: undefined },
  ),
  id: fc.option(
    safeValue.filter((value) => !value.includes('\0')),
    { nil: undefined },
  ),
  data: fc.array(safeValue, { minLength: 1, maxLength: 4 }),
  comment: fc.option(safeValue, { nil: undefined }),
  ending: lineEnding,
  space: fc.boolean(),
});

describe('createSseParser', () => {
  it('gives the same events and retry however the text is split', () => {
    fc.assert(
      fc.property(streamText, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        expect(parseParts(splitAt(text, cuts))).toEqual(parseParts([text]));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same events one character at a time as in one piece', () => {
    fc.assert(
      fc.property(streamText, (text) => {
        expect(parseParts([...text])).toEqual(parseParts([text]));
      }),
      { numRuns: 500 },
    );
  });

  it('recovers exactly the events a server wrote, with any line endings, comments and splits', () => {
    fc.assert(
      fc.property(
        fc.array(modelEvent, { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (events, cuts) => {
          const colon = (space: boolean) => (space ? ': ' : ':');
          const text = events
            .map(({ event, id, data, comment, ending, space }) => {
              const lines: string[] = [];
              if (comment !== undefined) lines.push(`:${comment}`);
              if (event !== undefined) lines.push(`event${colon(space)}${event}`);
              if (id !== undefined) lines.push(`id${colon(space)}${id}`);
              for (const line of data) lines.push(`data${colon(space)}${line}`);
              return lines.map((line) => line + ending).join('') + ending;
            })
            .join('');
          let lastId = '';
          const expected: SseEvent[] = events.map(({ event, id, data }) => {
            if (id !== undefined) lastId = id;
            return { event: event ?? 'message', data: data.join('\n'), id: lastId };
          });
          expect(parseParts(splitAt(text, cuts)).events).toEqual(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('follows the standard on the corner cases', () => {
    const { events, retry } = parseParts([
      '\uFEFF: keep-alive\n\n',
      'data\n\n', // a field name alone is a field with an empty value
      'data:no space\ndata:  two spaces\n\n',
      'event: chunk\nid: 7\ndata: {"a":1}\n\n',
      'data: keeps the last id\n\n',
      'id: bad\0id\ndata: NUL ids are ignored\n\n',
      'event: empty\n\n', // no data: not dispatched, and the type does not leak into the next block
      'retry: 1500\nretry: 2s\nunknown: field\ndata: x\n\n',
      'data: never ended',
    ]);
    expect(events).toEqual([
      { event: 'message', data: '', id: '' },
      { event: 'message', data: 'no space\n two spaces', id: '' },
      { event: 'chunk', data: '{"a":1}', id: '7' },
      { event: 'message', data: 'keeps the last id', id: '7' },
      { event: 'message', data: 'NUL ids are ignored', id: '7' },
      { event: 'message', data: 'x', id: '7' },
    ]);
    expect(retry).toBe(1500);
  });

  it('drops one leading BOM only', () => {
    expect(parseParts(['\uFEFF\uFEFFdata: x\n\n', 'data: y\n\n']).events).toEqual([
      { event: 'message', data: 'y', id: '' },
    ]);
  });

  it('treats a CR at the end of one chunk and an LF at the start of the next as one line ending', () => {
    expect(parseParts(['data: a\r', '\ndata: b\r', '\r']).events).toEqual([
      { event: 'message', data: 'a\nb', id: '' },
    ]);
  });
});

describe('readSseEvents', () => {
  it('decodes UTF-8 split anywhere between network chunks', async () => {
    await fc.assert(
      fc.asyncProperty(streamText, fc.array(fc.nat(), { maxLength: 8 }), async (text, cuts) => {
        const bytes = new TextEncoder().encode(text);
        const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort(
          (a, b) => a - b,
        );
        const chunks: Uint8Array[] = [];
        let previous = 0;
        for (const point of [...points, bytes.length]) {
          chunks.push(bytes.slice(previous, point));
          previous = point;
        }
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
            controller.close();
          },
        });
        const events: SseEvent[] = [];
        for await (const event of readSseEvents(body)) events.push(event);
        expect(events).toEqual(parseParts([text]).events);
      }),
      { numRuns: 300 },
    );
  });

  it('drops a leading BOM once, like the parser alone', async () => {
    const body = new Blob(['\uFEFF\uFEFFdata: x\n\ndata: y\n\n']).stream();
    const events: SseEvent[] = [];
    for await (const event of readSseEvents(body)) events.push(event);
    expect(events).toEqual([{ event: 'message', data: 'y', id: '' }]);
  });

  it('cancels the body when the consumer stops early', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: tick\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of readSseEvents(body)) {
      expect(event.data).toBe('tick');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
