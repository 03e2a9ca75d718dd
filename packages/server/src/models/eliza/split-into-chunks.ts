import { hashText } from './hash-text';

const MIN_CHUNK = 8;
const MAX_CHUNK = 24;

/**
 * Cuts `text` into pieces of 8 to 24 characters, at boundaries derived from the text itself (xorshift32
 * seeded with its hash), so streaming is exercised with uneven pieces yet stays reproducible. A surrogate pair
 * is never split.
 */
export function splitIntoChunks(text: string): string[] {
  let state = hashText(text) || 1;
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    let end = Math.min(
      text.length,
      start + MIN_CHUNK + ((state >>> 0) % (MAX_CHUNK - MIN_CHUNK + 1)),
    );
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < text.length) end += 1;
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}
