import type { Memory } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { AgentAbilities } from '../../agents/agent-abilities';
import { untilAborted } from '../tools/until-aborted';

/**
 * Runs an agent's evaluators after a stored reply, in parallel, within one deadline: each whose `validate`
 * answers true (or that sets `alwaysRun`) gets the message and, as `responses`, the reply. A failure or a miss
 * of the deadline is logged; nothing here reaches the reply or its clients. Never rejects.
 */
export async function runEvaluators(
  abilities: AgentAbilities,
  message: Memory,
  reply: Memory,
  options: { timeoutMs: number; logger: Logger },
): Promise<void> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  await Promise.all(
    abilities.evaluators.map(async ({ item, runtime, pluginName }) => {
      try {
        await untilAborted(
          Promise.resolve().then(async () => {
            const run = item.alwaysRun === true || (await item.validate(runtime, message)) === true;
            if (run) await item.handler(runtime, message, undefined, {}, undefined, [reply]);
          }),
          deadline,
        );
      } catch (error) {
        options.logger.warn(
          { err: deadline.aborted ? undefined : error, evaluator: item.name, plugin: pluginName },
          deadline.aborted ? 'an evaluator missed the deadline' : 'an evaluator failed',
        );
      }
    }),
  );
}
