/**
 * A decomposition pattern and the reassembly templates it may answer with. In a template `{n}` is the n-th
 * part of the match, reflected ("my" → "your"), and `{name}` is the agent's name.
 */
export interface ElizaRule {
  pattern: string;
  replies: readonly string[];
}

/** A keyword: the words that trigger it, its rank (higher wins) and its rules, tried in order. */
export interface ElizaKeyword {
  words: readonly string[];
  rank: number;
  rules: readonly ElizaRule[];
}

/** A complete conversation script in the manner of Weizenbaum's DOCTOR. */
export interface ElizaScript {
  /** Word classes a pattern refers to as `@name`. */
  groups: Readonly<Record<string, readonly string[]>>;
  keywords: readonly ElizaKeyword[];
  /** What earlier statements are remembered by, and how they are brought back when nothing else fits. */
  memory: ElizaRule;
  /** Said when no keyword and no memory applies. */
  fallbacks: readonly string[];
  /** Said when there is nothing to answer yet. */
  greetings: readonly string[];
}
