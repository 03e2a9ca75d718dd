import pLimit from 'p-limit';
import type { ModelMessage } from '../../models/model-provider';
import type { ToolCallRecord } from '../parts/reply-part';
import type { ReplyStream } from '../parts/reply-stream';
import {
  parseToolInput,
  runToolCall,
  type ToolCallOutcome,
  type ToolCallRequest,
  type ToolRunContext,
} from './run-tool-call';
import { toStorableValue } from './storable-records';
import { toModelContent } from './tool-output';

/** What one step's calls came to. */
export interface ToolStepResult {
  /** Each call with its outcome, in the order the model made them. */
  records: ToolCallRecord[];
  /** The declared names of the actions that ran (an unknown tool did not), in call order. */
  ran: string[];
  /** The results as the model's next turn reads them, after its call turn. */
  messages: ModelMessage[];
}

/** Bounds of one step's calls. */
export interface ToolStepLimits {
  maxParallel: number;
  maxCalls: number;
}

/** Which calls wait for a person before they run. */
export interface ToolStepApprovals {
  /** Whether the call needs a person's approval (its action's `needsApproval`). */
  needs(call: ToolCallRequest): Promise<boolean>;
  /** Whether only an approver may decide the call (its action's `approvalBy: 'approver'`). */
  approverOnly?(call: ToolCallRequest): boolean;
  /** When a request made now expires (ISO 8601). */
  expiresAt: string;
}

/** A step that waits for approvals: the outcomes of the calls that ran (by index), and the calls that wait. */
export interface PausedToolStep {
  paused: true;
  /** Each call's outcome, in the model's order; undefined for a call that waits. */
  outcomes: (ToolCallOutcome | undefined)[];
  waiting: ToolCallRequest[];
}

/**
 * Runs the calls one model step made: a `tool-call` part for each at once (in the model's order), an
 * `approval-request` part for each that needs a person's approval, then the other calls, at most `maxParallel` at
 * a time, each `tool-result` part as its call ends. Calls beyond `maxCalls` do not run: their result is an error
 * saying so. When some call waits for approval the step pauses ({@link PausedToolStep}); the caller goes on with
 * {@link assembleStep} once they are decided. Never throws; a cancel ends each running call with an error result.
 */
export async function runToolStep(
  calls: readonly ToolCallRequest[],
  step: number,
  stream: ReplyStream,
  context: ToolRunContext,
  limits: ToolStepLimits,
  approvals?: ToolStepApprovals,
): Promise<ToolStepResult | PausedToolStep> {
  const { replyId } = stream;
  for (const call of calls) {
    stream.write({
      type: 'tool-call',
      replyId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: shownInput(call.input),
      step,
    });
  }
  const waits = await Promise.all(
    calls.map((call, index) =>
      approvals && index < limits.maxCalls ? approvals.needs(call) : Promise.resolve(false),
    ),
  );
  calls.forEach((call, index) => {
    if (!waits[index]) return;
    stream.write({
      type: 'approval-request',
      replyId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: shownInput(call.input),
      step,
      expiresAt: approvals!.expiresAt,
      ...(approvals!.approverOnly?.(call) ? { approverOnly: true as const } : {}),
    });
  });
  const limit = pLimit(Math.max(1, limits.maxParallel));
  const outcomes = await Promise.all(
    calls.map((call, index) =>
      waits[index]
        ? Promise.resolve(undefined)
        : limit(async () => {
            const outcome =
              index < limits.maxCalls
                ? await runToolCall(call, context)
                : {
                    input: shownInput(call.input),
                    error: `Too many tool calls in one step: at most ${limits.maxCalls} run`,
                  };
            writeResult(stream, call, outcome, step);
            return outcome;
          }),
    ),
  );
  const waiting = calls.filter((_, index) => waits[index]);
  if (waiting.length > 0) return { paused: true, outcomes, waiting };
  return assembleStep(calls, outcomes as ToolCallOutcome[]);
}

/** Writes a call's `tool-result` part. */
export function writeResult(
  stream: ReplyStream,
  call: ToolCallRequest,
  outcome: ToolCallOutcome,
  step: number,
): void {
  stream.write({
    type: 'tool-result',
    replyId: stream.replyId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    ...(outcome.error === undefined ? { output: outcome.output ?? {} } : { error: outcome.error }),
    step,
  });
}

/** A step's calls with their outcomes (in the model's order) as records, actions that ran and model messages. */
export function assembleStep(
  calls: readonly ToolCallRequest[],
  outcomes: readonly ToolCallOutcome[],
): ToolStepResult {
  const records: ToolCallRecord[] = [];
  const ran: string[] = [];
  const messages: ModelMessage[] = [];
  calls.forEach((call, index) => {
    const outcome = outcomes[index]!;
    const record: ToolCallRecord = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: toStorableValue(outcome.input, MAX_SHOWN_INPUT),
      ...(outcome.error === undefined
        ? { output: outcome.output ?? {} }
        : { error: outcome.error }),
    };
    records.push(record);
    if (outcome.actionName !== undefined) ran.push(outcome.actionName);
    messages.push({
      role: 'tool',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      content: toModelContent(record),
    });
  });
  return { records, ran, messages };
}

/** Most characters of a call's arguments shown in its parts and stored (a model can send up to 1 MiB). */
const MAX_SHOWN_INPUT = 64 * 1024;

/** A call's arguments as parts show them: parsed JSON, or the text as it came, storable either way. */
export function shownInput(input: unknown): unknown {
  return toStorableValue(parseToolInput(input).value, MAX_SHOWN_INPUT);
}
