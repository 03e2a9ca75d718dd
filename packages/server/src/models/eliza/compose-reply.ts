import type { ModelMessage } from '../model-provider';
import { type ElizaReply, NO_KEYWORD_THOUGHT } from './eliza-reply';
import type { CompiledRule, CompiledScript } from './compile-script';
import type { ElizaKeyword } from './eliza-script';
import { hashText } from './hash-text';
import { matchPattern } from './match-pattern';
import { type PickContext, pickReply } from './pick-reply';
import { type Word, toClauses } from './to-clauses';

interface Candidate {
  keyword: ElizaKeyword;
  rules: readonly CompiledRule[];
  word: Word;
  clause: Word[];
}

/** Every keyword in the message, strongest first; ties go to the earlier clause, then the earlier word. */
function findKeywords(clauses: Word[][], script: CompiledScript): Candidate[] {
  const candidates: Candidate[] = [];
  for (const clause of clauses) {
    const seen = new Set<ElizaKeyword>();
    for (const word of clause) {
      const entry = script.keywordByWord.get(word.key);
      if (!entry || seen.has(entry.keyword)) continue;
      seen.add(entry.keyword);
      candidates.push({ ...entry, word, clause });
    }
  }
  // Array.prototype.sort is stable, so equal ranks keep their reading order.
  return candidates.sort((a, b) => b.keyword.rank - a.keyword.rank);
}

function answerKeywords(candidates: Candidate[], script: CompiledScript, context: PickContext) {
  for (const { rules, word, clause } of candidates) {
    for (const rule of rules) {
      const parts = matchPattern(rule.tokens, clause, script.source.groups);
      const text = parts && pickReply(rule.replies, parts, context);
      if (text) {
        return {
          thought: `They said "${word.text}". Turn it back to them and let them go on.`,
          text,
        };
      }
    }
  }
  return undefined;
}

/** Brings back an earlier "my …" statement, most recent first, as Weizenbaum's MEMORY mechanism did. */
function recall(earlier: readonly string[], script: CompiledScript, context: PickContext) {
  for (let index = earlier.length - 1; index >= 0; index--) {
    for (const clause of toClauses(earlier[index] as string)) {
      const parts = matchPattern(script.memory.tokens, clause, script.source.groups);
      const text = parts && pickReply(script.memory.replies, parts, context);
      if (text && !context.said.some((said) => said.includes(text))) {
        return {
          thought: 'Nothing to key on this time. Bring back something they said earlier.',
          text,
        };
      }
    }
  }
  return undefined;
}

/**
 * ELIZA's answer to the last user message of a conversation: the highest-ranked keyword's first matching
 * decomposition, reassembled with the speaker's words reflected; else a remembered earlier statement; else a
 * neutral prompt to go on. Every choice is derived from the messages, never from chance.
 */
export function composeReply(
  messages: readonly ModelMessage[],
  agentName: string,
  script: CompiledScript,
): ElizaReply {
  const userTurns = messages.filter((message) => message.role === 'user').map((m) => m.content);
  const said = messages.filter((message) => message.role === 'assistant').map((m) => m.content);
  const last = userTurns.pop() ?? '';
  const clauses = toClauses(last);
  const turn = userTurns.length;
  if (clauses.length === 0) {
    const context = { seed: turn, agentName, said };
    const text = pickReply(script.source.greetings, [], context) ?? '';
    return { thought: 'Nothing to answer yet. Invite them to talk.', text };
  }
  const normalized = clauses.map((clause) => clause.map((word) => word.key).join(' ')).join('|');
  const context = { seed: hashText(normalized) + turn, agentName, said };
  const found = answerKeywords(findKeywords(clauses, script), script, context);
  if (found) return found;
  const remembered = recall(userTurns, script, context);
  if (remembered) return remembered;
  return {
    thought: NO_KEYWORD_THOUGHT,
    text: pickReply(script.source.fallbacks, [], context) ?? '',
  };
}
