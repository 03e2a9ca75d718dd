import type { StoredMessage } from '@parley/core';
import type { ModelProvider } from '../../models/model-provider';
import { modelText } from '../../models/stream-model';
import { estimateTokens } from './token-estimate';

/** What a summary reads of a message. */
export type SummaryTurn = Pick<StoredMessage, 'id' | 'author_name' | 'content'>;

/** Folds turns that fell out of the prompt window into the running summary. */
export type Summarizer = (input: {
  previous: string;
  turns: readonly SummaryTurn[];
  /** The summary's bound, in tokens (estimated). */
  maxTokens: number;
  agentName: string;
  signal?: AbortSignal;
}) => Promise<string>;

/** Longest line one turn gives the extractive summary, in characters. */
const TURN_LINE_CHARS = 280;
/** The line that stands for turns the extractive summary left out. */
const GAP = '[…]';
/** The share of an extractive summary's bound kept for the conversation's opening lines. */
const OPENING_SHARE = 0.4;

/** A turn as one line: `Name: text`, whitespace folded, cut with an ellipsis. */
export function turnLine(message: SummaryTurn): string {
  const text = message.content.replace(/\s+/g, ' ').trim();
  const cut = text.length > TURN_LINE_CHARS ? `${text.slice(0, TURN_LINE_CHARS - 1)}…` : text;
  return `${message.author_name}: ${cut}`;
}

/**
 * The deterministic summary (the offline model's, and the fallback when a model fails): the turns' lines, and when
 * they pass the bound, the conversation's opening lines (what it was about) and its latest ones, with `[…]` for
 * the turns between. Extractive, not abstractive: it keeps words as said, which is what makes it answerable about
 * the first message, and it needs no model.
 */
export function extractiveSummary(
  previous: string,
  lines: readonly string[],
  maxTokens: number,
): string {
  const all = [...(previous === '' ? [] : previous.split('\n')), ...lines].filter(
    (line) => line.trim() !== '',
  );
  if (estimateTokens(all.join('\n')) <= maxTokens) return all.join('\n');
  const opening: string[] = [];
  let used = estimateTokens(GAP);
  for (const line of all) {
    if (line === GAP) break;
    const cost = estimateTokens(line) + 1;
    if (used + cost > maxTokens * OPENING_SHARE) break;
    opening.push(line);
    used += cost;
  }
  const latest: string[] = [];
  for (let index = all.length - 1; index >= opening.length; index -= 1) {
    const line = all[index]!;
    if (line === GAP) break;
    const cost = estimateTokens(line) + 1;
    if (used + cost > maxTokens) break;
    latest.push(line);
    used += cost;
  }
  return [...opening, GAP, ...latest.reverse()].join('\n');
}

/** {@link extractiveSummary} as a {@link Summarizer}. */
export const extractiveSummarizer: Summarizer = ({ previous, turns, maxTokens }) =>
  Promise.resolve(extractiveSummary(previous, turns.map(turnLine), maxTokens));

/** What the model is told when it keeps a running summary. */
export function summaryInstructions(agentName: string, maxTokens: number): string {
  const words = Math.max(50, Math.floor(maxTokens * 0.6));
  return [
    `You keep the running summary of a long conversation with ${agentName}, for ${agentName} to read later.`,
    'Update the summary so far with the new turns. Keep who said what, names, facts, numbers, codes, decisions,',
    'open questions and what the conversation opened with. Leave out greetings and small talk.',
    `At most ${words} words. Answer with the updated summary only, no preamble.`,
  ].join(' ');
}

/**
 * A summarizer on the agent's chat model: one call per update with the previous summary and the new turns; the
 * answer cut to the bound. Throws what the model throws (the caller falls back to the extractive summary).
 */
export function modelSummarizer(model: ModelProvider): Summarizer {
  return async ({ previous, turns, maxTokens, agentName, signal }) => {
    const prompt = [
      `Summary so far:\n${previous === '' ? '(none yet)' : previous}`,
      `New turns:\n${turns.map(turnLine).join('\n')}`,
    ].join('\n\n');
    const limit = Math.floor(maxTokens * 3.5);
    const text = await modelText(
      model,
      {
        messages: [
          { role: 'system', content: summaryInstructions(agentName, maxTokens) },
          { role: 'user', content: prompt },
        ],
        agentName,
        signal,
      },
      limit,
    );
    const summary = text.trim().slice(0, limit);
    if (summary === '') throw new Error('the model answered an empty summary');
    return summary;
  };
}
