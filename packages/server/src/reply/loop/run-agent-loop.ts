import { MAX_TOOL_CALLS_PER_REPLY } from '@parley/core';
import type { AgentProfile } from '../../agents/agent-profile';
import { needsApproval } from '../approvals/needs-approval';
import type { ReplyStream } from '../parts/reply-stream';
import { runToolStep, type ToolStepResult } from '../tools/run-tool-step';
import { buildPrompt } from './build-prompt';
import { ChunkCoalescer } from './chunk-coalescer';
import type { LoopOutcome, LoopProgress, LoopSetup, ModelReplyContext } from './loop-types';
import { runModelStep } from './model-step';
import { callsOf, toModelTool } from './step-calls';

/** A new reply's progress. */
export const freshProgress = (): LoopProgress => ({
  text: '',
  index: 0,
  steps: [],
  records: [],
  ran: [],
  step: 0,
  lastStepNext: false,
});

/**
 * The bounded loop: providers compose context, the model answers (text deltas as they come) and may call the
 * offered actions; the calls run (`tool-call`, `tool-result` parts) and their results go back to the model,
 * until it answers without calls or the step bound is reached, when it is asked to answer without tools. A call
 * that needs a person's approval pauses the loop at the end of its step. Throws what the model throws, and on
 * cancel.
 */
export async function runAgentLoop(
  context: ModelReplyContext,
  setup: LoopSetup,
  agent: AgentProfile,
  stream: ReplyStream,
  progress: LoopProgress,
): Promise<LoopOutcome> {
  const { model, signal, logger } = context;
  const { replyId } = stream;
  const { actions, limits } = setup;
  const chunks = new ChunkCoalescer((delta) => {
    stream.write({ type: 'text-delta', replyId, delta, index: progress.index });
    progress.index += 1;
  });
  for (; ; progress.step += 1) {
    const { step } = progress;
    const lastStep = (step >= limits.maxSteps || progress.lastStepNext) && actions.length > 0;
    const offered = lastStep ? [] : actions;
    const state = await setup.compose();
    signal.throwIfAborted();
    const request = {
      messages: buildPrompt(agent.character, agent.agentId, setup.history, {
        context: state.text,
        summary: setup.summary,
        callsTools: model.callsTools,
        actions: offered,
        steps: progress.steps,
        lastStep,
      }),
      signal,
      agentName: agent.character.name,
      character: agent.character,
      ...(model.callsTools && offered.length > 0 ? { tools: offered.map(toModelTool) } : {}),
    };
    // A later step's text starts a new paragraph of the reply.
    let separated = progress.text === '';
    const call = () =>
      runModelStep(model, request, context.createExtractor(), (delta) => {
        const piece = separated ? delta : `\n\n${delta}`;
        separated = true;
        progress.text += piece;
        chunks.push(piece);
      });
    const last = await (context.telemetry ? context.telemetry.chat(agent, request, call) : call());
    stream.addUsage(last.usage);
    // At most MAX_TOOL_CALLS_PER_REPLY calls in all: what a reply records and clients accept.
    const room = MAX_TOOL_CALLS_PER_REPLY - progress.records.length;
    // Ids already used in this reply are not used again (records, approvals and clients key calls by id).
    const calls =
      offered.length > 0 ? callsOf(last, offered, model.callsTools, step, progress.records) : [];
    if (calls.length === 0) {
      chunks.flush();
      return { kind: 'answered', last };
    }
    calls.splice(room);
    // The text so far goes out before the calls.
    chunks.flush();
    const toolContext = setup.toolContext(state, offered);
    const done = await runToolStep(
      calls,
      step,
      stream,
      toolContext,
      { maxParallel: limits.maxParallelTools, maxCalls: limits.maxToolCallsPerStep },
      {
        needs: (call) =>
          needsApproval(
            call,
            toolContext.findAction,
            setup.message,
            limits.providerTimeoutMs,
            logger,
          ),
        approverOnly: (call) =>
          toolContext.findAction(call.toolName)?.action.approvalBy === 'approver',
        expiresAt: new Date(Date.now() + (context.pauses?.timeoutMs ?? 0)).toISOString(),
      },
    );
    if ('paused' in done) {
      signal.throwIfAborted();
      const outcomes = done.outcomes.map((outcome) => outcome ?? null);
      return { kind: 'paused', paused: { step, content: last.text, calls, outcomes } };
    }
    completeStep(progress, last.text, done);
    signal.throwIfAborted();
  }
}

/** Adds a step's calls and results to the progress (the model reads them in its next step). */
export function completeStep(progress: LoopProgress, content: string, done: ToolStepResult): void {
  progress.records.push(...done.records);
  progress.ran.push(...done.ran);
  progress.steps.push(
    {
      role: 'assistant',
      content,
      // Arguments as parsed: what did not parse goes back as `{}` (a server may refuse invalid JSON).
      toolCalls: done.records.map(({ toolCallId, toolName, input }) => ({
        toolCallId,
        toolName,
        input: typeof input === 'string' ? '{}' : JSON.stringify(input ?? {}),
      })),
    },
    ...done.messages,
  );
  if (progress.records.length >= MAX_TOOL_CALLS_PER_REPLY) progress.lastStepNext = true;
}
