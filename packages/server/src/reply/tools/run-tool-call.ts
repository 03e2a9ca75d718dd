import type { ActionResult, Content, HandlerCallback, Memory, State } from '@parley/plugin-sdk';
import { findJsonProblem, toStorableText } from '@parley/core';
import type { Logger } from 'pino';
import type { AgentAction } from '../../agents/agent-abilities';
import type { ReplyTelemetry } from '../../tracing/reply-telemetry';
import { deeperThan, MAX_ARGUMENT_DEPTH } from '../../models/argument-depth';
import { redactText, redactValue } from '../../redaction/redact';
import { capText } from './tool-output';
import { untilAborted } from './until-aborted';
import type { ToolCallOutcome, ToolCallRequest, ToolOutput } from './tool-call-types';

export type { ToolCallOutcome, ToolCallRequest, ToolOutput } from './tool-call-types';

/** What running calls needs. */
export interface ToolRunContext {
  /** The action a call names, among those offered for this message (none: an unknown tool). */
  findAction: (toolName: string) => AgentAction | undefined;
  /** The message being answered, as actions see it. */
  message: Memory;
  state: State;
  /** The reply's signal: a cancel stops the call. */
  signal: AbortSignal;
  /** A call's deadline unless its action sets one. */
  timeoutMs: number;
  /** Most characters of a result given back; beyond, it is cut with a marker. */
  resultLimit: number;
  /** Posts content into the channel as the agent (the handler's `callback`). */
  post: (content: Content) => Promise<Memory[]>;
  logger: Logger;
  /** Values never shown in a result (the agent's secrets). */
  secrets: readonly string[];
  /** Where each call's `execute_tool` span goes (default: none). */
  telemetry?: ReplyTelemetry;
}

/**
 * Runs one call and never throws: an unknown tool, arguments that are not JSON or fail the action's schema, a
 * handler that throws, reports failure, or outlives its deadline, and a cancel, each become an `error` the model
 * sees. The handler gets the checked arguments as `options.parameters`, a signal aborted at the deadline or a
 * cancel, and a callback that posts as the agent; a handler that ignores the signal is left behind, not awaited.
 * With `context.telemetry`, the call is an `execute_tool` span.
 */
export function runToolCall(
  call: ToolCallRequest,
  context: ToolRunContext,
): Promise<ToolCallOutcome> {
  return context.telemetry
    ? context.telemetry.tool(call, () => runCall(call, context))
    : runCall(call, context);
}

/** {@link runToolCall} without its span. */
async function runCall(call: ToolCallRequest, context: ToolRunContext): Promise<ToolCallOutcome> {
  const parsed = parseToolInput(call.input);
  const found = context.findAction(call.toolName);
  if (!found) return { input: parsed.value, error: `Unknown tool ${call.toolName}` };
  const { action, runtime, input } = found;
  const actionName = action.name;
  if (!parsed.ok) return { input: parsed.value, actionName, error: parsed.error };
  const checked = input.check(parsed.value);
  if (!checked.ok) {
    return { input: parsed.value, actionName, error: `Invalid arguments: ${checked.error}` };
  }
  const timeoutMs = positive(action.timeoutMs) ?? context.timeoutMs;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([context.signal, deadline]);
  const said: string[] = [];
  const callback: HandlerCallback = async (content) => {
    signal.throwIfAborted();
    if (typeof content?.text === 'string' && content.text !== '') said.push(content.text);
    return context.post(content);
  };
  const options = { parameters: checked.value, toolCallId: call.toolCallId, signal };
  try {
    const result = await untilAborted(
      Promise.resolve().then(() =>
        action.handler(runtime, context.message, context.state, options, callback, []),
      ),
      signal,
    );
    return { input: parsed.value, actionName, ...toOutcome(result, said, context) };
  } catch (error) {
    if (deadline.aborted && !context.signal.aborted) {
      return { input: parsed.value, actionName, error: `Timed out after ${timeoutMs} ms` };
    }
    if (context.signal.aborted) return { input: parsed.value, actionName, error: 'Cancelled' };
    context.logger.warn({ err: error, action: actionName }, 'an action failed');
    const message = error instanceof Error ? error.message : String(error);
    return {
      input: parsed.value,
      actionName,
      error: capText(
        toStorableText(redactText(`The action failed: ${message}`, context.secrets)),
        1000,
      ),
    };
  }
}

const TOO_DEEP = `The arguments are nested deeper than ${MAX_ARGUMENT_DEPTH} levels`;

/**
 * The model's arguments: JSON text parsed (empty is `{}`), an object as it is; unparsable text as it came, and
 * arguments nested deeper than {@link MAX_ARGUMENT_DEPTH} as their text (an object: a note saying so).
 */
export function parseToolInput(input: unknown): { ok: boolean; value: unknown; error?: string } {
  if (typeof input !== 'string') {
    const value = input ?? {};
    if (deeperThan(value, MAX_ARGUMENT_DEPTH)) {
      return { ok: false, value: '(arguments nested too deep to show)', error: TOO_DEEP };
    }
    return { ok: true, value };
  }
  if (input.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(input);
  } catch {
    return { ok: false, value: input, error: 'The arguments are not valid JSON' };
  }
  if (deeperThan(value, MAX_ARGUMENT_DEPTH)) return { ok: false, value: input, error: TOO_DEEP };
  return { ok: true, value };
}

/** A handler's return as an outcome: `success: false` is an error; a bare return keeps what it posted. */
function toOutcome(
  result: unknown,
  said: readonly string[],
  context: ToolRunContext,
): { output?: ToolOutput; error?: string } {
  const value = (typeof result === 'object' && result !== null ? result : {}) as ActionResult;
  if (result === false || value.success === false) {
    const reason = value.error instanceof Error ? value.error.message : value.error;
    const text = typeof reason === 'string' && reason !== '' ? reason : value.text;
    return {
      error: capText(
        toStorableText(redactText(text || 'The action failed', context.secrets)),
        1000,
      ),
    };
  }
  const output: ToolOutput = {};
  const text = typeof value.text === 'string' ? value.text : said.join('\n');
  if (text !== '') output.text = text;
  if (isRecord(value.values)) output.values = value.values;
  if (isRecord(value.data)) output.data = value.data;
  return { output: boundOutput(output, context) };
}

/**
 * The output within the result limit, secrets removed, storable (no NUL, no lone surrogate, bounded depth); too
 * large or not storable as it is, it becomes its JSON text, cut.
 */
function boundOutput(output: ToolOutput, context: ToolRunContext): ToolOutput {
  let json: string;
  try {
    json = JSON.stringify(output);
  } catch {
    // Values that JSON cannot carry (a cycle, a BigInt): the text alone.
    return output.text === undefined ? {} : boundOutput({ text: output.text }, context);
  }
  // Secrets removed from the value as JSON gives it (names, shapes, known values), then measured again.
  const parsed = redactValue(JSON.parse(json) as ToolOutput, context.secrets);
  const clean = JSON.stringify(parsed);
  if (clean.length <= context.resultLimit && !findJsonProblem(parsed)) return parsed;
  const onlyText = parsed.values === undefined && parsed.data === undefined;
  const text = onlyText && typeof parsed.text === 'string' ? parsed.text : clean;
  return { text: capText(toStorableText(text), context.resultLimit) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
