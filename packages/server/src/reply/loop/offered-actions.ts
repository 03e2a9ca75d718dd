import type { Memory, State } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { AgentAbilities, AgentAction } from '../../agents/agent-abilities';
import { untilAborted } from '../tools/until-aborted';

/**
 * The actions offered for `message`: those whose `validate` answers true (an action without one always is),
 * asked in parallel within one deadline. A validate that throws or misses the deadline leaves its action out,
 * logged.
 */
export async function offeredActions(
  abilities: AgentAbilities,
  message: Memory,
  timeoutMs: number,
  logger: Logger,
): Promise<AgentAction[]> {
  const all = abilities.actions;
  if (all.length === 0) return [];
  const deadline = AbortSignal.timeout(timeoutMs);
  const state: State = { values: {}, data: {}, text: '' };
  const verdicts = await Promise.all(
    all.map(async ({ action, runtime, pluginName }) => {
      if (typeof action.validate !== 'function') return true;
      try {
        const valid = await untilAborted(
          Promise.resolve().then(() => action.validate!(runtime, message, state)),
          deadline,
        );
        return valid === true;
      } catch (error) {
        logger.warn(
          { err: deadline.aborted ? undefined : error, action: action.name, plugin: pluginName },
          deadline.aborted
            ? 'an action validate missed the deadline; the action is not offered'
            : 'an action validate failed; the action is not offered',
        );
        return false;
      }
    }),
  );
  return all.filter((_, index) => verdicts[index]);
}
