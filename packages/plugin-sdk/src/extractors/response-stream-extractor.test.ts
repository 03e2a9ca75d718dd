import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResponseStreamExtractor } from './response-stream-extractor';
import {
  cutsArbitrary,
  markupDocumentArbitrary,
  responseDocumentArbitrary,
} from './test/arbitraries';
import { referenceResponse } from './test/reference-response';
import { isWellFormed, runChunks, splitAt } from './test/run-chunks';

const REPLY =
  '<response><thought>The user greets me.</thought><actions>REPLY</actions>' +
  '<text>Hello! How are you?</text></response>';

/** Everything a run exposes, for comparing runs. */
function observe(extractor: ResponseStreamExtractor, chunks: readonly string[]) {
  const { pieces, output } = runChunks(extractor, chunks);
  const { thought, actions, text, done } = extractor;
  return { pieces, state: { output, thought, actions, text, done } };
}

describe('ResponseStreamExtractor', () => {
  it('streams the text of a plain reply and exposes thought and actions', () => {
    const extractor = new ResponseStreamExtractor();
    const textStart = REPLY.indexOf('<text>');
    expect(extractor.push(REPLY.slice(0, textStart))).toBe('');
    expect(extractor.thought).toBe('The user greets me.');
    expect(extractor.actions).toEqual(['REPLY']);
    expect(extractor.push(REPLY.slice(textStart))).toBe('Hello! How are you?');
    expect(extractor.text).toBe('Hello! How are you?');
    expect(extractor.done).toBe(true);
    expect(extractor.flush()).toBe('');
  });

  it('streams text as it arrives, before the closing tag', () => {
    const extractor = new ResponseStreamExtractor();
    expect(extractor.push('<actions>REPLY</actions><text>Hel')).toBe('Hel');
    expect(extractor.streaming).toBe(true);
    expect(extractor.push('lo <b>there</b>')).toBe('lo <b>there</b>');
    expect(extractor.push('</te')).toBe('');
    expect(extractor.push('xt>')).toBe('');
    expect(extractor.done).toBe(true);
  });

  it('streams the text when no actions come before it', () => {
    const { output } = runChunks(new ResponseStreamExtractor(), ['<response><text>Hi</text>']);
    expect(output).toBe('Hi');
  });

  it('streams nothing when the actions are not a plain reply, yet keeps the text', () => {
    for (const actions of ['REPLY, SEND_EMAIL', 'IGNORE', '', 'reply']) {
      const extractor = new ResponseStreamExtractor();
      const { output } = runChunks(extractor, [
        `<response><actions>${actions}</actions><text>Sending it now.</text></response>`,
      ]);
      expect(output).toBe('');
      expect(extractor.streaming).toBe(false);
      expect(extractor.text).toBe('Sending it now.');
    }
  });

  it('splits actions on commas and trims them', () => {
    const extractor = new ResponseStreamExtractor();
    extractor.push('<actions> REPLY ,FOLLOW_ROOM,, </actions>');
    expect(extractor.actions).toEqual(['REPLY', 'FOLLOW_ROOM']);
  });

  it('treats " REPLY " as a plain reply', () => {
    const { output } = runChunks(new ResponseStreamExtractor(), [
      '<actions>\n REPLY \n</actions><text>ok</text>',
    ]);
    expect(output).toBe('ok');
  });

  it('ends an unclosed text at the end of input, partial closing tag included', () => {
    const extractor = new ResponseStreamExtractor();
    expect(extractor.push('<text>cut off </te')).toBe('cut off ');
    expect(extractor.flush()).toBe('</te');
    expect(extractor.text).toBe('cut off </te');
    expect(extractor.done).toBe(false);
  });

  it('parses unclosed actions at the end of input', () => {
    const extractor = new ResponseStreamExtractor();
    runChunks(extractor, ['<thought>hmm', '</thought><actions>REPLY, MUTE']);
    expect(extractor.thought).toBe('hmm');
    expect(extractor.actions).toEqual(['REPLY', 'MUTE']);
  });

  it('reads malformed markup without throwing', () => {
    for (const document of [
      '<text',
      '</text>',
      '<<<>>>',
      '<actions><text>x</text>',
      '<text></text',
    ]) {
      expect(() => runChunks(new ResponseStreamExtractor(), [document])).not.toThrow();
    }
  });

  it('ignores input after the text closes and starts over after reset', () => {
    const extractor = new ResponseStreamExtractor();
    runChunks(extractor, ['<text>a</text><text>b</text>']);
    expect(extractor.text).toBe('a');
    extractor.reset();
    expect(extractor.text).toBeUndefined();
    expect(extractor.actions).toBeUndefined();
    expect(runChunks(extractor, ['<actions>IGNORE</actions><text>c</text>']).output).toBe('');
    extractor.reset();
    expect(runChunks(extractor, ['<text>d</text>']).output).toBe('d');
  });

  it('rejects a field limit that is not a positive integer', () => {
    expect(() => new ResponseStreamExtractor({ maxFieldLength: 0 })).toThrow(RangeError);
    expect(() => new ResponseStreamExtractor({ maxFieldLength: 1.5 })).toThrow(RangeError);
  });

  it('keeps memory bounded on megabytes of unclosed thought, and caps the captured field', () => {
    const extractor = new ResponseStreamExtractor({ maxFieldLength: 1_000 });
    extractor.push('<response><thought>');
    const block = 'think </though <t </actions- 😀 '.repeat(40) + '</thought';
    for (let round = 0; round < 4_000; round += 1) {
      expect(extractor.push(block)).toBe('');
      expect(extractor.bufferedLength).toBeLessThanOrEqual('</actions>'.length);
    }
    expect(extractor.thought).toHaveLength(1_000);
    expect(extractor.thought).toBe(block.repeat(2).slice(0, 1_000));
  });

  it('streams megabytes of unclosed text without holding them back', () => {
    const extractor = new ResponseStreamExtractor({ maxFieldLength: 10 });
    extractor.push('<text>');
    const block = 'words </tex <<< 😀 '.repeat(50) + '</te';
    let streamed = '';
    for (let round = 0; round < 4_000; round += 1) {
      streamed += extractor.push(block);
      expect(extractor.bufferedLength).toBeLessThanOrEqual('</actions>'.length);
    }
    streamed += extractor.flush();
    expect(streamed.length).toBe(block.length * 4_000);
    expect(extractor.text).toBe(block.slice(0, 10));
  });

  it('never cuts a surrogate pair in a capped field', () => {
    const extractor = new ResponseStreamExtractor({ maxFieldLength: 2 });
    runChunks(extractor, ['<thought>a😀b</thought>']);
    expect(extractor.thought).toBe('a');
  });

  it('matches a whole-document reading of random markup however it is split', () => {
    fc.assert(
      fc.property(markupDocumentArbitrary, cutsArbitrary, (document, cuts) => {
        const whole = observe(new ResponseStreamExtractor(), [document]).state;
        const split = observe(new ResponseStreamExtractor(), splitAt(document, cuts));
        const single = observe(new ResponseStreamExtractor(), document.split('')).state;
        const reference = referenceResponse(document);
        expect({ ...whole, done: undefined }).toEqual({ ...reference, done: undefined });
        expect(split.state).toEqual(whole);
        expect(single).toEqual(whole);
        for (const piece of split.pieces) expect(isWellFormed(piece)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('streams exactly the text of well-formed responses with a plain reply', () => {
    fc.assert(
      fc.property(responseDocumentArbitrary, cutsArbitrary, (response, cuts) => {
        const extractor = new ResponseStreamExtractor();
        const { output } = runChunks(extractor, splitAt(response.document, cuts));
        const actions = response.actions?.split(',').map((action) => action.trim());
        const plain = actions === undefined || actions.filter(Boolean).join() === 'REPLY';
        expect(output).toBe(plain ? response.text : '');
        expect(extractor.text).toBe(response.text);
        expect(extractor.thought).toBe(response.thought ?? undefined);
      }),
      { numRuns: 300 },
    );
  });
});
