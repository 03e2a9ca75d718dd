import type { Logger } from 'pino';
import { untilAborted } from '../reply/tools/until-aborted';
import type { RecallInput, Recaller, RecallSource } from './recall';

/** What the recallers found for one reply: the prompt's text and the sources, in recaller order. */
export interface Recalled {
  /** Each section as `## Title` and its text, joined; empty when nothing was found. */
  text: string;
  sources: RecallSource[];
}

/** Most characters one recalled section adds to the prompt (a recaller keeps to its own budget first). */
const MAX_SECTION_TEXT = 16 * 1024;
/** Most sources one reply records. */
const MAX_SOURCES = 50;

/**
 * Runs the recallers for one reply in parallel, within `timeoutMs` in all (and the reply's signal): one that
 * throws or is late is logged and left out. No recallers: nothing runs.
 */
export async function runRecallers(
  recallers: readonly Recaller[],
  input: Omit<RecallInput, 'signal'>,
  options: { timeoutMs: number; signal?: AbortSignal; logger: Pick<Logger, 'warn'> },
): Promise<Recalled> {
  if (recallers.length === 0) return { text: '', sources: [] };
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const sections = await Promise.all(
    recallers.map(async (recaller) => {
      try {
        return await untilAborted(
          Promise.resolve().then(() => recaller({ ...input, signal })),
          signal,
        );
      } catch (error) {
        if (options.signal?.aborted) return undefined;
        options.logger.warn(
          { err: deadline.aborted ? undefined : error, agentId: input.agentId },
          deadline.aborted
            ? 'a recaller missed the deadline and was left out'
            : 'a recaller failed and was left out',
        );
        return undefined;
      }
    }),
  );
  const texts: string[] = [];
  const sources: RecallSource[] = [];
  for (const section of sections) {
    if (!section || typeof section.text !== 'string' || section.text.trim() === '') continue;
    texts.push(`## ${section.title}\n${section.text.slice(0, MAX_SECTION_TEXT)}`);
    for (const source of section.sources ?? []) {
      if (sources.length < MAX_SOURCES) sources.push(source);
    }
  }
  return { text: texts.join('\n\n'), sources };
}
