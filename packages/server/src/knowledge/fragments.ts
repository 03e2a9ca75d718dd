import { estimateTokens } from '../memory/summary/token-estimate';

/** Characters per estimated token, as {@link estimateTokens} counts them (3.5: an upper estimate). */
const CHARACTERS_PER_TOKEN = 3.5;

/**
 * Splits a document's text into overlapping fragments of at most `tokens` estimated tokens (3.5 characters a
 * token, the prompt budget's estimate), each starting `overlap` tokens before the previous one ended, cut at a
 * paragraph, line, sentence or word boundary where one lies in the fragment's last fifth. Whitespace-only
 * fragments are dropped. Stops at `maxFragments` (the caller refuses a document that needs more).
 */
export function splitIntoFragments(
  text: string,
  options: { tokens: number; overlap: number; maxFragments: number },
): string[] {
  const size = Math.max(16, Math.floor(options.tokens * CHARACTERS_PER_TOKEN));
  const overlap = Math.min(
    Math.floor(options.overlap * CHARACTERS_PER_TOKEN),
    Math.floor(size / 2),
  );
  const clean = text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const fragments: string[] = [];
  let start = 0;
  while (start < clean.length && fragments.length <= options.maxFragments) {
    let end = Math.min(clean.length, start + size);
    if (end < clean.length) end = boundaryBefore(clean, start + Math.floor(size * 0.8), end);
    const fragment = clean.slice(start, end).trim();
    if (fragment !== '') fragments.push(fragment);
    if (end >= clean.length) break;
    // Start the next one `overlap` back, at a word's start.
    let next = Math.max(start + 1, end - overlap);
    const space = clean.indexOf(' ', next);
    if (space !== -1 && space < end) next = space + 1;
    start = next;
  }
  return fragments;
}

/** The best place to cut in [from, to): after a blank line, else a line, a sentence, a word; else `to`. */
function boundaryBefore(text: string, from: number, to: number): number {
  const window = text.slice(from, to);
  for (const mark of ['\n\n', '\n', '. ', '? ', '! ', ' ']) {
    const at = window.lastIndexOf(mark);
    if (at !== -1) return from + at + mark.length;
  }
  return to;
}

/** Estimated tokens of a fragment as the prompt budget counts them. */
export const fragmentTokens = estimateTokens;
