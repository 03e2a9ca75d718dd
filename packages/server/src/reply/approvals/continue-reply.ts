import type { StoredMessage } from '@parley/core';
import type { AgentProfile } from '../../agents/agent-profile';
import type { StoredDecision } from './approval-store';
import { prepareLoop } from '../loop/loop-setup';
import type { ModelReplyContext } from '../loop/loop-types';
import { conclude, guarded } from '../loop/produce-model-reply';
import { runAgentLoop } from '../loop/run-agent-loop';
import type { ReplyStream } from '../parts/reply-stream';
import { settlePausedStep, type LoopCheckpoint } from './pause-reply';

/**
 * Takes on a reply that paused for approvals, in `stream` (a {@link ReplyStream.continuing} of it): the waiting
 * calls run or are refused by their decisions, and the loop goes on from the next step, to a stored reply, a
 * failure, or another pause. Never rejects: a failure is an `error` part.
 */
export async function continueModelReply(
  context: ModelReplyContext,
  stream: ReplyStream,
  agent: AgentProfile,
  userMessage: StoredMessage,
  checkpoint: LoopCheckpoint,
  decisions: readonly StoredDecision[],
): Promise<void> {
  const byCall = new Map(decisions.map((each) => [each.toolCallId, each]));
  const work = async () => {
    const { progress, paused } = checkpoint;
    const setup = await prepareLoop(context, agent, userMessage);
    await settlePausedStep(context, setup, stream, progress, paused, (id) => byCall.get(id));
    const outcome = await runAgentLoop(context, setup, agent, stream, progress);
    await conclude({ context, setup, agent, stream, userMessage, progress }, outcome);
  };
  // Its own `invoke_agent` span, in the trace of the reply that paused (stored with the pause).
  const reply = { replyId: stream.replyId, continued: true };
  await guarded(context, stream, agent, userMessage, () =>
    context.telemetry
      ? context.telemetry.invokeAgent(agent, stream.channelId, work, reply)
      : work(),
  );
}
