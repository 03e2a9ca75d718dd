import { describe, expect, it } from 'vitest';
import { JsonStringDecoder } from './json-string-decoder';

/** Decodes a string literal's inside (closing quote included) one unit at a time. */
function decode(literalInside: string): { text: string; closed: boolean } {
  const decoder = new JsonStringDecoder();
  let text = '';
  for (const unit of literalInside.split('')) {
    if (decoder.closed) break;
    text += decoder.next(unit);
  }
  if (!decoder.closed) text += decoder.finish();
  return { text, closed: decoder.closed };
}

describe('JsonStringDecoder', () => {
  it('decodes every JSON escape', () => {
    expect(decode(String.raw`a\"b\\c\/d\be\ff\ng\rh\ti\u00e9"`)).toEqual({
      text: 'a"b\\c/d\be\ff\ng\rh\ti\u00e9',
      closed: true,
    });
  });

  it('joins a surrogate pair written as two escapes', () => {
    expect(decode(String.raw`\ud83d\ude00!"`).text).toBe('😀!');
  });

  it('replaces halves without their partner, so the output is well-formed', () => {
    expect(decode(String.raw`\ud83dx"`).text).toBe('\uFFFDx');
    expect(decode(String.raw`\ude00"`).text).toBe('\uFFFD');
    expect(decode(String.raw`\ud83d"`).text).toBe('\uFFFD');
    expect(decode(String.raw`\ud83d\ud83d\ude00"`).text).toBe('\uFFFD😀');
  });

  it('replaces a broken \\u escape and reads on', () => {
    expect(decode(String.raw`\u00zz"`).text).toBe('\uFFFDzz');
    expect(decode(String.raw`\u12"`)).toEqual({ text: '\uFFFD', closed: true });
  });

  it('keeps the character of an unknown escape', () => {
    expect(decode(String.raw`\x\'"`).text).toBe("x'");
  });

  it('turns a pending half and an unfinished escape into replacements at the end of input', () => {
    expect(decode(String.raw`ok\ud83d`)).toEqual({ text: 'ok\uFFFD', closed: false });
    expect(decode(String.raw`ok\u00`)).toEqual({ text: 'ok\uFFFD', closed: false });
  });
});
