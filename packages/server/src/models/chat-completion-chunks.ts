import { randomBytes } from 'node:crypto';
import { ParleyError } from '@parley/core';
import { JSONParseError, TypeValidationError } from '@ai-sdk/provider';
import { deeperThan, MAX_ARGUMENT_DEPTH } from './argument-depth';
import type { ModelFinishReason, ModelStreamPartV2, ModelUsage } from './model-provider';
import { toModelError } from './to-model-error';

/**
 * Bounds on one step's tool calls, the same over both transports: a model (or a server) that streams without end is cut
 * off with `MODEL_ERROR` rather than held in memory.
 */
export const TOOL_CALL_LIMITS = {
  /** Tool calls in one step. */
  calls: 128,
  /** Bytes (UTF-8) of one call's arguments. */
  argumentBytes: 1024 * 1024,
  /** Characters of a tool's name. */
  nameLength: 256,
} as const;

/** The MODEL_ERROR for a step over one of {@link TOOL_CALL_LIMITS}; its message is safe for clients. */
export function toolCallLimitError(limit: keyof typeof TOOL_CALL_LIMITS): ParleyError {
  const messages = {
    calls: `The model made more than ${TOOL_CALL_LIMITS.calls} tool calls in one step`,
    argumentBytes: 'The model sent tool call arguments over 1 MiB',
    nameLength: `The model named a tool with more than ${TOOL_CALL_LIMITS.nameLength} characters`,
  };
  return new ParleyError('MODEL_ERROR', messages[limit]);
}

/** An id for a tool call the server sent without one, in OpenAI's `call_…` form. */
export function generateToolCallId(): string {
  return `call_${randomBytes(12).toString('base64url')}`;
}

interface ChunkShape {
  choices?: {
    delta?: {
      content?: unknown;
      tool_calls?: unknown;
      reasoning_content?: unknown;
      reasoning?: unknown;
    } | null;
    finish_reason?: unknown;
  }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
  error?: unknown;
}

interface ToolCallDeltaShape {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

/** A tool call being streamed: the pieces seen so far. */
interface OpenToolCall {
  id: string | undefined;
  name: string | undefined;
  args: string;
  /** UTF-8 bytes of `args`. */
  bytes: number;
  /** The id its `tool-input-*` parts carry, once `tool-input-start` was handed out (its `id`). */
  inputId: string | undefined;
}

/**
 * Reads one step's `chat.completion.chunk` events: returns each chunk's text (its reasoning in `reasoning`),
 * gathers the tool calls streamed in
 * `delta.tool_calls` and hands them out whole, in `ready` when the chunk with the finish reason arrives, or from
 * `end` for a server that never gives one. Each call's input is handed out as it streams, too (`tool-input-start`
 * once the call has its id and name, a `tool-input-delta` per argument fragment, `tool-input-end` before the
 * call), for faces that show a call being written. Written to the shapes servers send:
 *
 * - OpenAI, LM Studio: the first delta of a call has `index`, `id`, `function.name` and `arguments: ''`; later ones
 *   only `index` and argument fragments; several calls interleave by `index`.
 * - vLLM: the same, sometimes with `id` (and the name) repeated on every delta, or the arguments whole at once.
 * - Ollama: each call whole in one delta; finish reason `tool_calls`, or `stop` in older versions.
 * - llama.cpp server, proxies for Gemini and others: `index` may be missing; a delta without one continues the
 *   last call (or the call with its `id`) unless it names another tool.
 *
 * Reasoning is read from `delta.reasoning_content` (vLLM's reasoning parsers, DeepSeek, llama.cpp server with
 * `--reasoning-format deepseek`) or `delta.reasoning` (Ollama's OpenAI-compatible API, vLLM since 0.10, OpenRouter,
 * LM Studio): never text.
 *
 * A new call starts at an unseen index, or when a delta names a tool and differs from the open call at its index
 * (another name, another id, or the same tool again once the open call's arguments are whole): servers that put
 * every call at index 0 exist. A call without an id gets one; without arguments, `{}`.
 */
export class ChunkReader {
  /** Tool parts not yet handed out: a call's input as it streams, and the call once complete. */
  readonly ready: ModelStreamPartV2[] = [];
  /** The reasoning of the last chunk read (`''` when it had none). */
  reasoning = '';
  #open: OpenToolCall[] = [];
  #byIndex = new Map<number, OpenToolCall>();
  #byId = new Map<string, OpenToolCall>();
  #calls = 0;
  #finishReason: string | undefined;
  #usage: ModelUsage | undefined;

  /** The text of one event's chunk; throws what the AI SDK would for a bad or failed one. */
  deltaOf(data: string): string {
    this.reasoning = '';
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch (cause) {
      throw new JSONParseError({ text: data, cause });
    }
    if (typeof chunk !== 'object' || chunk === null) {
      throw new TypeValidationError({ value: chunk, cause: new Error('not an object') });
    }
    const { choices, error, usage } = chunk as ChunkShape;
    // An error object inside the stream, as an OpenAI-compatible server reports a failure mid-answer.
    if (error !== undefined && error !== null) throw toModelError(error);
    // OpenAI sends `usage: null` on every chunk but the last (with `choices: []`); llama.cpp puts it on the last.
    if (usage !== undefined && usage !== null) this.#readUsage(usage);
    if (!Array.isArray(choices)) {
      if (usage !== undefined && usage !== null) return '';
      throw new TypeValidationError({ value: chunk, cause: new Error('no choices') });
    }
    const choice = choices[0];
    if (choice === undefined) return '';
    const reason = choice.finish_reason;
    if (reason === 'error') {
      throw new ParleyError('MODEL_ERROR', 'The model service ended the answer with an error');
    }
    const delta = choice.delta;
    let text = '';
    if (delta !== undefined && delta !== null) {
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning !== undefined && reasoning !== null) {
        if (typeof reasoning !== 'string') {
          throw new TypeValidationError({
            value: chunk,
            cause: new Error('reasoning is not text'),
          });
        }
        this.reasoning = reasoning;
      }
      const content = delta.content;
      if (content !== undefined && content !== null) {
        if (typeof content !== 'string') {
          throw new TypeValidationError({ value: chunk, cause: new Error('content is not text') });
        }
        text = content;
      }
      const toolCalls = delta.tool_calls;
      if (toolCalls !== undefined && toolCalls !== null) this.#readToolCalls(toolCalls, chunk);
    }
    if (typeof reason === 'string' && reason !== '') {
      this.#finishReason = reason;
      this.#completeCalls();
    }
    return text;
  }

  /** The calls still open, then the `finish` part; at the end of the stream. */
  end(): ModelStreamPartV2[] {
    this.#completeCalls();
    const finishReason: ModelFinishReason =
      this.#finishReason === undefined
        ? // A server that never said why: the step stopped, or went on to its tool calls.
          this.#calls > 0
          ? 'tool-calls'
          : 'stop'
        : toFinishReason(this.#finishReason);
    const finish: ModelStreamPartV2 = { type: 'finish', finishReason, usage: this.#usage ?? {} };
    return [...this.ready.splice(0), finish];
  }

  #readUsage(usage: NonNullable<ChunkShape['usage']>): void {
    const { prompt_tokens: input, completion_tokens: output } = usage;
    if (typeof input !== 'number' && typeof output !== 'number') return;
    this.#usage = {
      ...(typeof input === 'number' ? { inputTokens: input } : {}),
      ...(typeof output === 'number' ? { outputTokens: output } : {}),
    };
  }

  #readToolCalls(toolCalls: unknown, chunk: unknown): void {
    if (!Array.isArray(toolCalls)) {
      throw new TypeValidationError({ value: chunk, cause: new Error('tool_calls is not a list') });
    }
    for (const delta of toolCalls as unknown[]) {
      if (typeof delta !== 'object' || delta === null) {
        throw new TypeValidationError({
          value: chunk,
          cause: new Error('a tool call is not an object'),
        });
      }
      const { index: wireIndex, id: wireId, function: fn } = delta as ToolCallDeltaShape;
      const index = typeof wireIndex === 'number' ? wireIndex : undefined;
      const id = typeof wireId === 'string' && wireId !== '' ? wireId : undefined;
      const wireName = fn?.name;
      const name = typeof wireName === 'string' && wireName.trim() !== '' ? wireName : undefined;
      let args = fn?.arguments;
      if (args === undefined || args === null) args = '';
      // Arguments as an object (Ollama's native shape, some proxies): their JSON text. Nested deeper than a
      // call may be, JSON.stringify would overflow the stack: the text is then arguments just too deep, which
      // the loop turns into a tool error the model sees.
      else if (typeof args === 'object') {
        args = deeperThan(args, MAX_ARGUMENT_DEPTH)
          ? `${'['.repeat(MAX_ARGUMENT_DEPTH + 1)}${']'.repeat(MAX_ARGUMENT_DEPTH + 1)}`
          : JSON.stringify(args);
      } else if (typeof args !== 'string') {
        throw new TypeValidationError({ value: chunk, cause: new Error('arguments are not text') });
      }
      const call = this.#callFor(index, id, name, args as string);
      if (id !== undefined && call.id === undefined) {
        call.id = id;
        this.#byId.set(id, call);
      }
      if (name !== undefined) {
        if (name.length > TOOL_CALL_LIMITS.nameLength) throw toolCallLimitError('nameLength');
        call.name = name;
      }
      if (args !== '') {
        call.bytes += Buffer.byteLength(args as string);
        if (call.bytes > TOOL_CALL_LIMITS.argumentBytes) throw toolCallLimitError('argumentBytes');
        call.args += args as string;
      }
      if (call.inputId !== undefined) {
        if (args !== '')
          this.ready.push({ type: 'tool-input-delta', id: call.inputId, delta: args as string });
      } else if (call.id !== undefined && call.name !== undefined) {
        this.#startInput(call, call.id, call.name);
      }
    }
  }

  /**
   * Hands out `tool-input-start` for `call`, with the arguments it has so far as one delta: once it has its id and
   * name (a call's input parts carry its id, which a server may send after the first delta), or when it completes.
   */
  #startInput(call: OpenToolCall, id: string, toolName: string): void {
    call.inputId = id;
    this.ready.push({ type: 'tool-input-start', id, toolName });
    if (call.args !== '') this.ready.push({ type: 'tool-input-delta', id, delta: call.args });
  }

  /** The open call a delta continues, or a new one. */
  #callFor(
    index: number | undefined,
    id: string | undefined,
    name: string | undefined,
    args: string,
  ): OpenToolCall {
    const open =
      index !== undefined
        ? this.#byIndex.get(index)
        : ((id !== undefined ? this.#byId.get(id) : undefined) ?? this.#open.at(-1));
    if (open && !startsAnotherCall(open, id, name, args)) return open;
    if (this.#calls >= TOOL_CALL_LIMITS.calls) throw toolCallLimitError('calls');
    this.#calls++;
    const call: OpenToolCall = {
      id: undefined,
      name: undefined,
      args: '',
      bytes: 0,
      inputId: undefined,
    };
    this.#open.push(call);
    if (index !== undefined) this.#byIndex.set(index, call);
    return call;
  }

  /** Hands out the open calls, in the order they began. */
  #completeCalls(): void {
    for (const call of this.#open) {
      if (call.name === undefined) {
        throw new TypeValidationError({
          value: { id: call.id },
          cause: new Error('a tool call without a name'),
        });
      }
      // Started calls have their id; a call still without one gets one now, as do its input parts.
      const id = call.inputId ?? call.id ?? generateToolCallId();
      if (call.inputId === undefined) this.#startInput(call, id, call.name);
      this.ready.push(
        { type: 'tool-input-end', id },
        {
          type: 'tool-call',
          toolCallId: id,
          toolName: call.name,
          input: call.args.trim() === '' ? '{}' : call.args,
        },
      );
    }
    this.#open = [];
    this.#byIndex.clear();
    this.#byId.clear();
  }
}

/** Whether a delta that names a tool begins a call other than `open`, the call at its index (or the last one). */
function startsAnotherCall(
  open: OpenToolCall,
  id: string | undefined,
  name: string | undefined,
  args: string,
): boolean {
  // Continuation deltas carry no name (or repeat it); a call still without a name takes the one given now.
  if (name === undefined || open.name === undefined) return false;
  if (name !== open.name) return true;
  if (id !== undefined && open.id !== undefined) return id !== open.id;
  // The same tool named again with nothing to tell the calls apart: another call once the open one is whole.
  return (
    id === undefined && open.args !== '' && args.trimStart().startsWith('{') && isJson(open.args)
  );
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The unified finish reason of a chat-completions `finish_reason`, as the AI SDK maps it. */
function toFinishReason(reason: string): ModelFinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    default:
      return 'other';
  }
}
