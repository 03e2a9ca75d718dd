import { storableTraceContext } from '../../tracing/trace-context';
import type { ApprovalRequest } from '@parley/core';
import pLimit from 'p-limit';
import type { Decision } from './approval-store';
import type {
  LoopProgress,
  LoopRun,
  LoopSetup,
  ModelReplyContext,
  PausedStep,
} from '../loop/loop-types';
import { completeStep } from '../loop/run-agent-loop';
import type { ReplyStream } from '../parts/reply-stream';
import {
  runToolCall,
  type ToolCallOutcome,
  type ToolCallRequest,
  type ToolRunContext,
} from '../tools/run-tool-call';
import { assembleStep, shownInput, writeResult } from '../tools/run-tool-step';

/** What a paused reply stores of its loop: its progress and the step that waits. */
export interface LoopCheckpoint {
  progress: LoopProgress;
  paused: PausedStep;
}

/** A call's decision, as the continuation applies it. */
export interface CallDecision {
  decision: Decision;
  reason: string | null;
}

/**
 * Pauses a reply whose step waits for approvals: stores its parts and loop state, then ends its stream with
 * `reply-pause` (the channel is free; any process continues it once every request is decided): `'paused'`.
 * Without a store for pauses, the waiting calls are refused and their step completed: `'refused'`, and the
 * caller's loop goes on.
 */
export async function pauseReply(run: LoopRun, paused: PausedStep): Promise<'paused' | 'refused'> {
  const { context, setup, agent, stream, userMessage, progress } = run;
  const { pauses, signal } = context;
  if (!pauses) {
    const refusal: CallDecision = { decision: 'denied', reason: null };
    await settlePausedStep(context, setup, stream, progress, paused, () => ({
      ...refusal,
      reason: 'This server cannot ask a person for approval; the call did not run',
    }));
    return 'refused';
  }
  const requests: ApprovalRequest[] = [];
  for (const part of stream.parts) {
    if (part.type !== 'approval-request' || part.step !== paused.step) continue;
    const { replyId, toolCallId, toolName, input, expiresAt } = part;
    requests.push({ replyId, toolCallId, toolName, input, expiresAt });
  }
  const checkpoint: LoopCheckpoint = { progress, paused };
  signal.throwIfAborted();
  await pauses.store.pause({
    replyId: stream.replyId,
    channelId: stream.channelId,
    agentId: agent.agentId,
    inReplyTo: userMessage.id,
    parts: stream.parts,
    progress: checkpoint as unknown as Record<string, unknown>,
    expiresAt: new Date(requests[0]?.expiresAt ?? Date.now()),
    requests,
    // Its continuation, in whichever process, joins this trace.
    traceContext: storableTraceContext(),
  });
  const decided = paused.calls.flatMap((call, index) => {
    const outcome = paused.outcomes[index];
    return outcome ? [{ call, outcome }] : [];
  });
  stream.write({
    type: 'reply-pause',
    replyId: stream.replyId,
    text: progress.text,
    toolCalls: [
      ...progress.records,
      ...assembleStep(
        decided.map(({ call }) => call),
        decided.map(({ outcome }) => outcome),
      ).records,
    ],
    requests,
  });
  return 'paused';
}

/**
 * Finishes the step a reply paused in: each waiting call runs when approved; a denied or expired one gets an
 * error result the model reads (a denial with the person's reason). Its `tool-result` parts go out in call
 * order; the step is then part of the progress, and the loop goes on with the next one.
 */
export async function settlePausedStep(
  context: ModelReplyContext,
  setup: LoopSetup,
  stream: ReplyStream,
  progress: LoopProgress,
  paused: PausedStep,
  decisionOf: (toolCallId: string) => CallDecision | undefined,
): Promise<void> {
  const state = await setup.compose();
  const toolContext = setup.toolContext(state, setup.actions);
  const limit = pLimit(Math.max(1, setup.limits.maxParallelTools));
  const outcomes = await Promise.all(
    paused.calls.map(async (call, index): Promise<ToolCallOutcome> => {
      const earlier = paused.outcomes[index];
      if (earlier) return earlier;
      const decided = decisionOf(call.toolCallId);
      const outcome =
        decided?.decision === 'approved'
          ? await limit(() => runApproved(context, stream, call, toolContext))
          : { input: shownInput(call.input), error: refusalOf(decided) };
      writeResult(stream, call, outcome, paused.step);
      return outcome;
    }),
  );
  completeStep(progress, paused.content, assembleStep(paused.calls, outcomes));
  progress.step += 1;
  context.signal.throwIfAborted();
}

/** What the model reads for an approved call that started on a process that stopped before it finished. */
export const OUTCOME_UNKNOWN =
  'The outcome of this call is unknown: it started, but the server process running it stopped before it ' +
  'finished; it was not run again';

/**
 * Runs an approved call at most once across processes: its start is recorded in the database before its
 * handler runs, and a continuation that finds it started (the process that ran it died) does not run it again
 * but gives the model {@link OUTCOME_UNKNOWN}, unless its action declares itself `idempotent`.
 */
async function runApproved(
  context: ModelReplyContext,
  stream: ReplyStream,
  call: ToolCallRequest,
  toolContext: ToolRunContext,
): Promise<ToolCallOutcome> {
  const found = toolContext.findAction(call.toolName);
  const store = context.pauses?.store;
  if (found && store && !(await store.markStarted(stream.replyId, call.toolCallId))) {
    if (found.action.idempotent !== true) {
      return {
        input: shownInput(call.input),
        actionName: found.action.name,
        error: OUTCOME_UNKNOWN,
      };
    }
  }
  return runToolCall(call, toolContext);
}

/** What the model reads for a call that did not run for want of approval. */
function refusalOf(decided: CallDecision | undefined): string {
  if (decided?.decision === 'denied') {
    return decided.reason
      ? `A person denied this call: ${decided.reason}`
      : 'A person denied this call';
  }
  return 'The approval request expired before anyone decided; the call did not run';
}
