/** One word of the input: as typed (for echoing back) and lower-cased (for matching). */
export interface Word {
  text: string;
  key: string;
}

const WORD = /[\p{L}\p{N}]+(?:['-][\p{L}\p{N}]+)*/gu;
// Like Weizenbaum's ELIZA, punctuation and "but" end a clause: only one clause gets an answer.
const CLAUSE_BREAK = /[.,;:!?]+|\bbut\b/iu;

// Bounds the pattern matcher's backtracking; ELIZA answers one clause, never an essay.
const MAX_WORDS_PER_CLAUSE = 40;

// Spelling variants folded before matching, so the script needs one pattern per idea.
const CONTRACTIONS: Record<string, string[]> = {
  "i'm": ['i', 'am'],
  im: ['i', 'am'],
  "you're": ['you', 'are'],
  youre: ['you', 'are'],
  dont: ["don't"],
  cant: ["can't"],
  cannot: ["can't"],
  wont: ["won't"],
};

/** Splits a message into clauses of words, with contractions folded and sentence-case undone. */
export function toClauses(message: string): Word[][] {
  const clauses: Word[][] = [];
  for (const part of message.replace(/[\u2018\u2019]/g, "'").split(CLAUSE_BREAK)) {
    const words: Word[] = [];
    for (const [raw] of part.matchAll(WORD)) {
      if (words.length >= MAX_WORDS_PER_CLAUSE) break;
      const key = raw.toLowerCase();
      const folded = CONTRACTIONS[key];
      if (folded) for (const word of folded) words.push({ text: word, key: word });
      // A capital only because the clause starts here is not part of the word ("Today" → "today").
      else if (words.length === 0 && raw.slice(1) === raw.slice(1).toLowerCase())
        words.push({ text: key, key });
      else words.push({ text: raw, key });
    }
    if (words.length > 0) clauses.push(words);
  }
  return clauses;
}
