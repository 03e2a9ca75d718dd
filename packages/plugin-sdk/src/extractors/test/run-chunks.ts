import type { StreamExtractor } from '../stream-extractor';

/** What an extractor produced for one run over a list of chunks. */
export interface ChunkRun {
  /** Every push() result, then the flush() result. */
  pieces: string[];
  /** All pieces joined. */
  output: string;
}

/** Feeds `chunks` to `extractor` in order, then flushes. */
export function runChunks(extractor: StreamExtractor, chunks: readonly string[]): ChunkRun {
  const pieces = chunks.map((chunk) => extractor.push(chunk));
  pieces.push(extractor.flush());
  return { pieces, output: pieces.join('') };
}

/** Cuts `text` at the given positions (taken modulo its length + 1, in any order, repeats allowed). */
export function splitAt(text: string, positions: readonly number[]): string[] {
  const cuts = [...new Set(positions.map((position) => position % (text.length + 1)))].sort(
    (a, b) => a - b,
  );
  const chunks: string[] = [];
  let start = 0;
  for (const cut of cuts) {
    chunks.push(text.slice(start, cut));
    start = cut;
  }
  chunks.push(text.slice(start));
  return chunks;
}

/** Whether a string has no surrogate half without its partner. */
export function isWellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
