import type { Logger } from 'pino';
import type { AgentAction } from '../../agents/agent-abilities';
import type { Memory } from '@parley/plugin-sdk';
import { parseToolInput, type ToolCallRequest } from '../tools/run-tool-call';
import { untilAborted } from '../tools/until-aborted';

/**
 * Whether a call must wait for a person: its action's `needsApproval` is `true`, or a function that answers
 * anything but false for the call's checked input and the message (one that throws, or misses `timeoutMs`, counts as true: a
 * policy that cannot answer does not let a call through). A call that will fail anyway (an unknown tool, input
 * that is not JSON or fails the action's schema) does not wait: its error goes to the model at once.
 */
export async function needsApproval(
  call: ToolCallRequest,
  findAction: (toolName: string) => AgentAction | undefined,
  message: Memory,
  timeoutMs: number,
  logger: Logger,
): Promise<boolean> {
  const found = findAction(call.toolName);
  const policy = found?.action.needsApproval;
  if (!found || policy === undefined || policy === false) return false;
  const parsed = parseToolInput(call.input);
  if (!parsed.ok) return false;
  const checked = found.input.check(parsed.value);
  if (!checked.ok) return false;
  if (typeof policy !== 'function') return true;
  try {
    const answer = await untilAborted(
      Promise.resolve().then(() => policy(checked.value, message)),
      AbortSignal.timeout(timeoutMs),
    );
    return answer !== false;
  } catch (error) {
    logger.warn(
      { err: error, action: found.action.name, plugin: found.pluginName },
      'a needsApproval policy failed; the call waits for approval',
    );
    return true;
  }
}
