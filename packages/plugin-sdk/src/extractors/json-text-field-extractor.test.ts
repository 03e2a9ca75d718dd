import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonTextFieldExtractor } from './json-text-field-extractor';
import { cutsArbitrary, jsonDocumentArbitrary } from './test/arbitraries';
import { isWellFormed, runChunks, splitAt } from './test/run-chunks';

function extract(chunks: readonly string[]): string {
  return runChunks(new JsonTextFieldExtractor(), chunks).output;
}

describe('JsonTextFieldExtractor', () => {
  it('streams the decoded top-level text field as it arrives', () => {
    const extractor = new JsonTextFieldExtractor();
    expect(extractor.push('{"thought":"hi","actions":["REPLY"],"text":"Hel')).toBe('Hel');
    expect(extractor.push('lo\\n\\u00e9')).toBe('lo\né');
    expect(extractor.done).toBe(false);
    expect(extractor.push('"}')).toBe('');
    expect(extractor.done).toBe(true);
  });

  it('decodes an escaped surrogate pair split across chunks into one piece', () => {
    const extractor = new JsonTextFieldExtractor();
    const pieces = ['{"text":"a\\u', 'd83d', '\\u', 'de', '00b"}'].map((chunk) =>
      extractor.push(chunk),
    );
    expect(pieces).toEqual(['a', '', '', '', '😀b']);
  });

  it('ignores "text" fields that are nested, values, or not strings', () => {
    expect(extract(['{"a":{"text":"no"},"b":"text","text":"yes"}'])).toBe('yes');
    expect(extract(['{"text":5,"x":["text"],"text":"second"}'])).toBe('second');
    expect(extract(['[["text"],{"a":1},{"text":"in array"}]'])).toBe('in array');
    expect(extract(['{"nested":[{"text":"deep"}]}'])).toBe('');
  });

  it('matches an escaped key and tells longer keys apart', () => {
    expect(extract(['{"te\\u0078t":"escaped key"}'])).toBe('escaped key');
    expect(extract(['{"texts":"no","tex":"no","text":"yes"}'])).toBe('yes');
  });

  it('is done when the root closes without a text field', () => {
    const extractor = new JsonTextFieldExtractor();
    expect(extractor.push('{"a":"}"}')).toBe('');
    expect(extractor.done).toBe(true);
  });

  it('reads malformed JSON without throwing', () => {
    for (const document of ['}}}', '{"text"', '{"text":"abc', '{"text":"\\u12', '{{]]"', '"']) {
      expect(() => extract([document])).not.toThrow();
    }
    expect(extract(['{"text":"unclosed \\ud83d'])).toBe('unclosed \uFFFD');
  });

  it('keeps constant memory on megabytes of nesting and of an unclosed text', () => {
    const nested = new JsonTextFieldExtractor();
    for (let round = 0; round < 1_000; round += 1) {
      expect(nested.push('{"a":[[{"text":"nested"},'.repeat(200))).toBe('');
      expect(nested.bufferedLength).toBeLessThanOrEqual(8);
    }
    expect(nested.done).toBe(false);
    const endless = new JsonTextFieldExtractor();
    endless.push('{"text":"');
    let streamed = 0;
    for (let round = 0; round < 1_000; round += 1) {
      streamed += endless.push('abc \\u00e9 😀 \\ud83d\\ude00 '.repeat(150)).length;
      expect(endless.bufferedLength).toBeLessThanOrEqual(8);
    }
    expect(streamed).toBe('abc é 😀 😀 '.length * 150 * 1_000);
  });

  it('streams the text field of any JSON document, however it is split', () => {
    fc.assert(
      fc.property(jsonDocumentArbitrary, cutsArbitrary, ({ document, text }, cuts) => {
        const { pieces, output } = runChunks(new JsonTextFieldExtractor(), splitAt(document, cuts));
        expect(output).toBe(text);
        expect(extract(document.split(''))).toBe(text);
        for (const piece of pieces) expect(isWellFormed(piece)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('starts over after reset', () => {
    const extractor = new JsonTextFieldExtractor();
    runChunks(extractor, ['{"text":"one"}']);
    extractor.reset();
    expect(runChunks(extractor, ['{"text":"two"}']).output).toBe('two');
  });
});
