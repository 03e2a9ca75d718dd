import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutsArbitrary, markupDocumentArbitrary } from './test/arbitraries';
import { isWellFormed, runChunks, splitAt } from './test/run-chunks';
import { XmlTagExtractor } from './xml-tag-extractor';

/** The content of the first `<tag>…</tag>`, read from the whole document with indexOf. */
function referenceContent(document: string): string {
  const start = document.indexOf('<tag>');
  if (start === -1) return '';
  const end = document.indexOf('</tag>', start + 5);
  return end === -1 ? document.slice(start + 5) : document.slice(start + 5, end);
}

describe('XmlTagExtractor', () => {
  it('streams only the content of the first tag and is done after it', () => {
    const extractor = new XmlTagExtractor('answer');
    expect(extractor.push('<thinking>hmm</thinking><answer>4')).toBe('4');
    expect(extractor.done).toBe(false);
    expect(extractor.push('2</answer><answer>again</answer>')).toBe('2');
    expect(extractor.done).toBe(true);
    expect(extractor.push('more')).toBe('');
    expect(extractor.flush()).toBe('');
  });

  it('finds tags split across chunks, down to one character per chunk', () => {
    const { output } = runChunks(new XmlTagExtractor('answer'), [...'x<answer>a < b</answer>y']);
    expect(output).toBe('a < b');
  });

  it('keeps a near-miss closing tag as content', () => {
    const extractor = new XmlTagExtractor('answer');
    expect(extractor.push('<answer>1</answ')).toBe('1');
    expect(extractor.push('er-not>2</answer>')).toBe('</answer-not>2');
  });

  it('gives back a partial closing tag at the end of an unclosed tag', () => {
    const extractor = new XmlTagExtractor('answer');
    expect(extractor.push('<answer>cut </ans')).toBe('cut ');
    expect(extractor.flush()).toBe('</ans');
    expect(extractor.done).toBe(false);
  });

  it('streams nothing when the tag never opens, and drops a partial opening tag', () => {
    const extractor = new XmlTagExtractor('answer');
    expect(extractor.push('plain text <answ')).toBe('');
    expect(extractor.flush()).toBe('');
  });

  it('matches tag names exactly', () => {
    expect(runChunks(new XmlTagExtractor('answer'), ['<Answer>x</Answer>']).output).toBe('');
    expect(runChunks(new XmlTagExtractor('answer'), ['<answer id="1">x</answer>']).output).toBe('');
  });

  it('starts over after reset', () => {
    const extractor = new XmlTagExtractor('a');
    runChunks(extractor, ['<a>one</a>']);
    extractor.reset();
    expect(extractor.done).toBe(false);
    expect(runChunks(extractor, ['<a>two</a>']).output).toBe('two');
  });

  it('rejects tag names it could not match reliably', () => {
    for (const name of ['', 'a b', 'a>', '</a', '1a']) {
      expect(() => new XmlTagExtractor(name)).toThrow(TypeError);
    }
  });

  it('holds back no more than the closing tag on megabytes of unclosed content', () => {
    const extractor = new XmlTagExtractor('tag');
    const bound = '</tag>'.length;
    extractor.push('<tag>');
    const block = 'abc </ta <t </tag- 😀 '.repeat(50) + '</ta';
    let streamed = 0;
    for (let round = 0; round < 4_000; round += 1) {
      streamed += extractor.push(block).length;
      expect(extractor.bufferedLength).toBeLessThanOrEqual(bound);
    }
    streamed += extractor.flush().length;
    expect(streamed).toBe(block.length * 4_000);
  });

  it('holds back no more than the opening tag while searching megabytes for it', () => {
    const extractor = new XmlTagExtractor('tag');
    for (let round = 0; round < 4_000; round += 1) {
      expect(extractor.push('no tag here < <ta <tag- '.repeat(40) + '<ta')).toBe('');
      expect(extractor.bufferedLength).toBeLessThan('<tag>'.length);
    }
  });

  it('gives the same output as a whole-document reading however the input is split', () => {
    fc.assert(
      fc.property(markupDocumentArbitrary, cutsArbitrary, (document, cuts) => {
        const whole = runChunks(new XmlTagExtractor('tag'), [document]).output;
        const split = runChunks(new XmlTagExtractor('tag'), splitAt(document, cuts));
        const single = runChunks(new XmlTagExtractor('tag'), document.split('')).output;
        expect(whole).toBe(referenceContent(document));
        expect(split.output).toBe(whole);
        expect(single).toBe(whole);
        for (const piece of split.pieces) expect(isWellFormed(piece)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
