/**
 * Facts a person states about themselves in plain words, read by rules: what the offline model (which cannot
 * extract anything) remembers, and cheap enough to run after every reply. Each rule takes the words after a
 * first-person cue up to the end of the clause and turns them into a third-person claim.
 */
const RULES: readonly { cue: RegExp; claim: (value: string) => string }[] = [
  { cue: /\bmy name is\s+/i, claim: (value) => `Their name is ${value}` },
  { cue: /\b(?:call me|i go by)\s+/i, claim: (value) => `They like to be called ${value}` },
  { cue: /\bi live in\s+/i, claim: (value) => `They live in ${value}` },
  { cue: /\bi(?: am|'m) from\s+/i, claim: (value) => `They are from ${value}` },
  { cue: /\bi work (?:at|for)\s+/i, claim: (value) => `They work at ${value}` },
  { cue: /\bi work as\s+(?:an?\s+)?/i, claim: (value) => `They work as ${value}` },
  { cue: /\bi(?: am|'m) allergic to\s+/i, claim: (value) => `They are allergic to ${value}` },
  { cue: /\bi (?:prefer|like|love|enjoy)\s+/i, claim: (value) => `They like ${value}` },
  {
    cue: /\bi (?:dislike|hate|don't like|do not like)\s+/i,
    claim: (value) => `They dislike ${value}`,
  },
  { cue: /\bmy birthday is\s+(?:on\s+)?/i, claim: (value) => `Their birthday is ${value}` },
  {
    cue: /\bmy favou?rite\s+/i,
    claim: (value) => {
      const [thing, is, ...rest] = value.split(/\s+(is|are)\s+/i);
      return is && rest.length > 0 ? `Their favourite ${thing} ${is} ${rest.join(' ')}` : '';
    },
  },
];

/** Longest value a rule takes, in characters (a clause, not a paragraph). */
const MAX_VALUE = 80;

/** The clause after a cue: up to the first sentence end, comma-joined clause or conjunction. */
function clauseAfter(text: string, start: number): string {
  const rest = text.slice(start);
  const end = rest.search(/[.!?;\n]|,\s|\s(?:and|but|so|because)\s/i);
  return (end === -1 ? rest : rest.slice(0, end)).trim().replace(/["'`]+$/, '');
}

/** The claims the rules find in a person's message (first person only; questions are skipped), in order. */
export function factsByRules(text: string): string[] {
  const claims: string[] = [];
  for (const sentence of text.split(/(?<=[.!\n;])\s*/)) {
    if (sentence.trim().endsWith('?')) continue;
    for (const rule of RULES) {
      const found = rule.cue.exec(sentence);
      if (!found) continue;
      const value = clauseAfter(sentence, found.index + found[0].length);
      if (value === '' || value.length > MAX_VALUE) continue;
      const claim = rule.claim(value);
      if (claim !== '') claims.push(claim);
    }
  }
  return claims;
}
