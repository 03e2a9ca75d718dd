import type { StoredMessage } from '@parley/core';
import type { Character } from '@parley/plugin-sdk';

/** One source a recalled section drew on (a document, a fact), shown under the reply by clients. */
export interface RecallSource {
  id: string;
  title: string;
  score?: number;
}

/** What one recaller adds to a reply's prompt: a headed text in `# Context`, and the sources it used. */
export interface RecallSection {
  title: string;
  text: string;
  sources?: RecallSource[];
}

/** What a recaller is asked with: the agent, the message being answered and the history the model sees. */
export interface RecallInput {
  agentId: string;
  character: Character;
  message: StoredMessage;
  history: readonly StoredMessage[];
  /** Aborted at the reply's cancel or the recall deadline (the providers' deadline). */
  signal?: AbortSignal;
}

/**
 * Finds what an agent should remember for a message (knowledge fragments, facts about the speaker). Runs once per
 * reply, in parallel with the other recallers, within the providers' deadline; one that throws or is late is left
 * out. Answers undefined when it has nothing (an agent with no knowledge pays nothing).
 */
export type Recaller = (input: RecallInput) => Promise<RecallSection | undefined>;
