import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PassthroughExtractor } from './passthrough-extractor';
import { cutsArbitrary, markupDocumentArbitrary } from './test/arbitraries';
import { isWellFormed, runChunks, splitAt } from './test/run-chunks';

describe('PassthroughExtractor', () => {
  it('streams every chunk as it is', () => {
    const extractor = new PassthroughExtractor();
    expect(extractor.push('<text>Hi')).toBe('<text>Hi');
    expect(extractor.push(' & bye</text>')).toBe(' & bye</text>');
    expect(extractor.flush()).toBe('');
    expect(extractor.done).toBe(false);
  });

  it('holds the first half of a surrogate pair until the second arrives', () => {
    const extractor = new PassthroughExtractor();
    expect(extractor.push('a\uD83D')).toBe('a');
    expect(extractor.bufferedLength).toBe(1);
    expect(extractor.push('\uDE00b')).toBe('😀b');
  });

  it('gives back a lone half at the end of input rather than losing it', () => {
    const extractor = new PassthroughExtractor();
    expect(extractor.push('\uD83D')).toBe('');
    expect(extractor.flush()).toBe('\uD83D');
  });

  it('forgets a held half on reset', () => {
    const extractor = new PassthroughExtractor();
    extractor.push('\uD83D');
    extractor.reset();
    expect(extractor.flush()).toBe('');
  });

  it('outputs the input however it is split, never half a pair at a time', () => {
    fc.assert(
      fc.property(markupDocumentArbitrary, cutsArbitrary, (document, cuts) => {
        const { pieces, output } = runChunks(new PassthroughExtractor(), splitAt(document, cuts));
        expect(output).toBe(document);
        for (const piece of pieces) expect(isWellFormed(piece)).toBe(true);
      }),
    );
  });
});
