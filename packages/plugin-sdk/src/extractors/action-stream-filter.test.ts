import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ActionStreamFilter, MAX_LEADING_WHITESPACE } from './action-stream-filter';
import { ResponseStreamExtractor } from './response-stream-extractor';
import {
  cutsArbitrary,
  jsonDocumentArbitrary,
  markupDocumentArbitrary,
  responseDocumentArbitrary,
  textArbitrary,
} from './test/arbitraries';
import { isWellFormed, runChunks, splitAt } from './test/run-chunks';

function filter(chunks: readonly string[]): { output: string; filter: ActionStreamFilter } {
  const extractor = new ActionStreamFilter();
  return { output: runChunks(extractor, chunks).output, filter: extractor };
}

describe('ActionStreamFilter', () => {
  it('streams the text field of JSON', () => {
    const { output, filter: result } = filter([
      '\n {"actions":["REPLY"],',
      '"text":"Hi \\"you\\""}',
    ]);
    expect(output).toBe('Hi "you"');
    expect(result.contentType).toBe('json');
    expect(result.done).toBe(true);
  });

  it('streams the text field of the first object in a JSON array', () => {
    expect(filter(['[{"text":"first"},{"text":"second"}]']).output).toBe('first');
  });

  it('reads XML as the action-aware format', () => {
    const reply = filter(['<response><actions>REPLY</actions><text>Hi</text></response>']);
    expect(reply.output).toBe('Hi');
    expect(reply.filter.contentType).toBe('xml');
    expect(reply.filter.actions).toEqual(['REPLY']);
    const action = filter(['<response><thought>t</thought><actions>MUTE</actions><text>x</text>']);
    expect(action.output).toBe('');
    expect(action.filter.thought).toBe('t');
  });

  it('passes plain text through, leading whitespace included', () => {
    const { output, filter: result } = filter(['  ', '\nHello <b>there</b> {"text":"x"}']);
    expect(output).toBe('  \nHello <b>there</b> {"text":"x"}');
    expect(result.contentType).toBe('text');
    expect(result.thought).toBeUndefined();
  });

  it('waits for the first non-whitespace character before deciding', () => {
    const extractor = new ActionStreamFilter();
    expect(extractor.push(' \n\t')).toBe('');
    expect(extractor.contentType).toBeUndefined();
    expect(extractor.push('{')).toBe('');
    expect(extractor.contentType).toBe('json');
  });

  it('gives back input that is only whitespace as text', () => {
    const { output, filter: result } = filter([' ', '\n']);
    expect(output).toBe(' \n');
    expect(result.contentType).toBe('text');
  });

  it('takes endless whitespace for text instead of holding it back', () => {
    const extractor = new ActionStreamFilter();
    let streamed = 0;
    for (let round = 0; round < 1_000; round += 1) {
      streamed += extractor.push(' \n'.repeat(1_000)).length;
      expect(extractor.bufferedLength).toBeLessThanOrEqual(MAX_LEADING_WHITESPACE);
    }
    expect(extractor.contentType).toBe('text');
    expect(streamed).toBe(2_000_000);
  });

  it('starts over after reset', () => {
    const extractor = new ActionStreamFilter();
    runChunks(extractor, ['{"text":"json"}']);
    extractor.reset();
    expect(extractor.contentType).toBeUndefined();
    expect(runChunks(extractor, ['plain']).output).toBe('plain');
    expect(extractor.contentType).toBe('text');
  });

  it('gives the same output however the input is split', () => {
    const documentArbitrary = fc.tuple(
      fc.constantFrom('', ' ', '\n\t '),
      fc.oneof(
        markupDocumentArbitrary,
        textArbitrary,
        responseDocumentArbitrary.map(({ document }) => document),
        jsonDocumentArbitrary.map(({ document }) => document),
      ),
    );
    fc.assert(
      fc.property(documentArbitrary, cutsArbitrary, ([space, body], cuts) => {
        const document = space + body;
        const whole = filter([document]);
        const split = runChunks(new ActionStreamFilter(), splitAt(document, cuts));
        expect(split.output).toBe(whole.output);
        expect(filter(document.split('')).output).toBe(whole.output);
        for (const piece of split.pieces) expect(isWellFormed(piece)).toBe(true);
        if (whole.filter.contentType === 'text') expect(whole.output).toBe(document);
        if (whole.filter.contentType === 'xml') {
          expect(whole.output).toBe(runChunks(new ResponseStreamExtractor(), [document]).output);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('streams exactly the text field of JSON documents, however they are split', () => {
    fc.assert(
      fc.property(jsonDocumentArbitrary, cutsArbitrary, ({ document, text }, cuts) => {
        expect(runChunks(new ActionStreamFilter(), splitAt(document, cuts)).output).toBe(text);
      }),
    );
  });
});
