import type { ElizaKeyword, ElizaScript } from './eliza-script';

/** A rule with its pattern split into tokens once. */
export interface CompiledRule {
  tokens: readonly string[];
  replies: readonly string[];
}

/** A script ready for matching: keywords found by word in one lookup, patterns pre-split. */
export interface CompiledScript {
  source: ElizaScript;
  keywordByWord: ReadonlyMap<string, { keyword: ElizaKeyword; rules: readonly CompiledRule[] }>;
  memory: CompiledRule;
}

function compileRule(rule: { pattern: string; replies: readonly string[] }): CompiledRule {
  return { tokens: rule.pattern.split(' '), replies: rule.replies };
}

/** Prepares a script for {@link composeReply}; done once per model, not per message. */
export function compileScript(script: ElizaScript): CompiledScript {
  const keywordByWord = new Map<string, { keyword: ElizaKeyword; rules: CompiledRule[] }>();
  for (const keyword of script.keywords) {
    const entry = { keyword, rules: keyword.rules.map(compileRule) };
    for (const word of keyword.words) keywordByWord.set(word, entry);
  }
  return { source: script, keywordByWord, memory: compileRule(script.memory) };
}
