import type { Word } from './to-clauses';

/**
 * Matches a decomposition pattern against a clause. Pattern tokens: `*` (any number of words, as few as
 * possible), `@group` (one word of that group), or a literal lower-case word. Returns one part per token (the
 * words it covered), numbered from 1 in reassembly templates, or undefined when the pattern does not match.
 */
export function matchPattern(
  pattern: readonly string[],
  words: readonly Word[],
  groups: Readonly<Record<string, readonly string[]>>,
): Word[][] | undefined {
  // starts[i] is where token i begins; token i ends where token i + 1 begins. Slicing waits for success.
  const starts: number[] = [];
  if (!matchFrom(0, 0)) return undefined;
  starts[pattern.length] = words.length;
  return pattern.map((_, index) => words.slice(starts[index], starts[index + 1]));

  function matchFrom(tokenIndex: number, wordIndex: number): boolean {
    if (tokenIndex === pattern.length) return wordIndex === words.length;
    starts[tokenIndex] = wordIndex;
    const token = pattern[tokenIndex] as string;
    if (token === '*') {
      for (let end = wordIndex; end <= words.length; end++) {
        if (matchFrom(tokenIndex + 1, end)) return true;
      }
      return false;
    }
    const word = words[wordIndex];
    if (!word) return false;
    const fits = token.startsWith('@')
      ? (groups[token.slice(1)]?.includes(word.key) ?? false)
      : token === word.key;
    return fits && matchFrom(tokenIndex + 1, wordIndex + 1);
  }
}
