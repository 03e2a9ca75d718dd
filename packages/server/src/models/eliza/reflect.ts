import type { Word } from './to-clauses';

const PAIRS: Record<string, string> = {
  'i am': 'you are',
  'i was': 'you were',
  'am i': 'are you',
  'was i': 'were you',
  'you are': 'I am',
  'you were': 'I was',
  'are you': 'am I',
  'were you': 'was I',
};

const SINGLES: Record<string, string> = {
  i: 'you',
  me: 'you',
  my: 'your',
  mine: 'yours',
  myself: 'yourself',
  am: 'are',
  "i've": "you've",
  "i'd": "you'd",
  "i'll": "you'll",
  your: 'my',
  yours: 'mine',
  yourself: 'myself',
  "you've": "I've",
  "you'd": "I'd",
  "you'll": "I'll",
};

// After these (or at the start) "you" is a subject and becomes "I"; elsewhere it is an object: "me".
const SUBJECT_AFTER = new Set([
  'that',
  'because',
  'if',
  'when',
  'whether',
  'why',
  'how',
  'what',
  'where',
  'who',
  'since',
  'so',
  'unless',
  'until',
  'while',
  'though',
  'although',
  'and',
  'or',
]);

/**
 * Turns the speaker's words around, the way ELIZA answers: "I am afraid of you" → "you are afraid of me".
 * Pairs go first so the verb follows its new subject ("I was" → "you were", not "you was").
 */
export function reflect(words: readonly Word[]): string[] {
  const out: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as Word;
    const next = words[index + 1];
    const pair = next && PAIRS[`${word.key} ${next.key}`];
    if (pair) {
      out.push(pair);
      index++;
    } else if (word.key === 'you') {
      const previous = words[index - 1];
      out.push(!previous || SUBJECT_AFTER.has(previous.key) ? 'I' : 'me');
    } else {
      out.push(SINGLES[word.key] ?? word.text);
    }
  }
  return out;
}
