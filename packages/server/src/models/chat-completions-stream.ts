import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { ParleyError } from '@parley/core';
import { APICallError, JSONParseError, TypeValidationError } from '@ai-sdk/provider';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type {
  ModelFinishReason,
  ModelMessage,
  ModelRequest,
  ModelStreamPart,
  ModelUsage,
} from './model-provider';
import { replyDeadline } from './reply-deadline';
import { toModelError } from './to-model-error';

/** Where and how to call an OpenAI-compatible chat-completions endpoint. */
export interface ChatCompletionsTarget {
  /** The full URL of `…/chat/completions`. */
  url: URL;
  model: string;
  apiKey?: string;
  /** Keep-alive connections to the model service, reused across replies. */
  agent: http.Agent;
  /** Whether the request's `tools` are sent; false for a server without tool support. */
  callsTools: boolean;
  /** Whether `stream_options: {include_usage: true}` is sent (see `OpenAICompatibleModelOptions.includeUsage`). */
  includeUsage: boolean;
}

/**
 * Bounds on one step's tool calls, the same on both paths: a model (or a server) that streams without end is cut
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

/** The most of an error response's body kept (for the log, as the error's cause). */
const MAX_ERROR_BODY = 64 * 1024;

/** A keep-alive connection pool for one model service: bounded, idle connections closed after a while. */
export function createModelAgent(url: URL): http.Agent {
  const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 60_000 };
  return url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

/**
 * Streams one chat completion step over node:http with a keep-alive pool, reading the server-sent events
 * with `eventsource-parser` and nothing else: no web streams, no per-chunk schema validation. Yields the text as
 * it comes, each tool call once complete (see `ChunkReader`), then one `finish` part. Behaves as the
 * AI SDK path did: failures throw `MODEL_ERROR` (the AI SDK's error classes in `cause`, mapped by
 * `toModelError`), silence beyond `timeoutMs` before the first piece or between pieces throws `TIMEOUT`
 * (time the caller spends on a piece does not count), an aborted `signal` throws its reason, and stopping
 * early or failing hangs up on the request. Never retried.
 */
export async function* streamChatCompletion(
  target: ChatCompletionsTarget,
  request: ModelRequest,
  timeoutMs: number,
): AsyncGenerator<ModelStreamPart, void, undefined> {
  const deadline = replyDeadline(request.signal, timeoutMs);
  const body = toRequestBody(target, request);
  const url = target.url.href;
  const requestBodyValues = { model: target.model, stream: true };
  const abortSignal = deadline.signal;
  let finished = false;
  let tail: ModelStreamPart[] = [];
  let clientRequest: http.ClientRequest | undefined;
  const hangUp = () => clientRequest?.destroy(abortSignal.reason as Error);
  abortSignal.addEventListener('abort', hangUp, { once: true });
  deadline.arm();
  try {
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const send = target.url.protocol === 'https:' ? https.request : http.request;
      clientRequest = send(target.url, {
        method: 'POST',
        agent: target.agent,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'content-length': Buffer.byteLength(body),
          ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}),
        },
      });
      clientRequest.once('response', (response) => {
        // Read errors reach the loop below; this listener only keeps a late one from crashing the process.
        response.on('error', () => undefined);
        resolve(response);
      });
      // Kept for the request's whole life: a hang-up after the response began emits 'error' too, and an
      // 'error' without a listener would crash the process.
      clientRequest.on('error', (error) =>
        reject(
          abortSignal.aborted
            ? error
            : new APICallError({
                message: 'Cannot connect to the model service',
                url,
                requestBodyValues,
                cause: error,
              }),
        ),
      );
      clientRequest.end(body);
    });
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      throw new APICallError({
        message: `HTTP ${status}`,
        url,
        requestBodyValues,
        statusCode: status,
        responseBody: await readLimited(response),
        isRetryable: false,
      });
    }
    response.setEncoding('utf8');
    const events: string[] = [];
    const parser = createParser({
      onEvent: (event: EventSourceMessage) => events.push(event.data),
    });
    let done = false;
    const reader = new ChunkReader();
    const chunks = (response as AsyncIterable<string>)[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<string>;
      try {
        next = await chunks.next();
      } catch (error) {
        if (abortSignal.aborted) throw error;
        // The connection broke off after a success status: the answer stream ended early.
        throw new APICallError({
          message: 'The answer stream ended early',
          url,
          requestBodyValues,
          statusCode: status,
          cause: error,
        });
      }
      deadline.pause();
      if (next.done) break;
      parser.feed(next.value);
      for (const data of events.splice(0)) {
        if (done) continue; // what follows [DONE] is read to the end (so the connection is reused), not used
        if (data === '[DONE]') {
          done = true;
          continue;
        }
        const delta = reader.deltaOf(data);
        if (delta !== '') yield { type: 'text-delta', delta };
        // Tool calls complete at the chunk with the finish reason; rare, so the text path allocates no array.
        if (reader.ready.length > 0) yield* reader.ready.splice(0);
      }
      deadline.arm();
    }
    finished = true;
    // Calls never closed by a finish reason (a server that ends with [DONE] or a hang-up alone), then `finish`.
    tail = reader.end();
  } catch (error) {
    throw deadline.settle(error);
  } finally {
    deadline.pause();
    abortSignal.removeEventListener('abort', hangUp);
    // Hangs up when the consumer stopped early or the stream failed half-way; a finished one keeps its socket.
    if (!finished) clientRequest?.destroy();
  }
  if (deadline.cutShort()) throw deadline.settle(undefined);
  yield* tail;
}

/**
 * The request body. `stream_options.include_usage` asks for a last chunk with the step's token usage: OpenAI,
 * vLLM, llama.cpp server, Ollama, LM Studio and OpenRouter accept it, but a few gateways refuse fields they do not
 * know (Azure AI model inference without `extra-parameters: pass-through` answers 400), so it can be turned off
 * (`includeUsage: false`). `tool_choice` is left out: `auto` is the default wherever tools are given, and not
 * every server takes every value of it.
 */
function toRequestBody(target: ChatCompletionsTarget, request: ModelRequest): string {
  const tools = target.callsTools && request.tools?.length ? request.tools : undefined;
  return JSON.stringify({
    model: target.model,
    messages: request.messages.map(toWireMessage),
    ...(tools
      ? {
          tools: tools.map(({ name, description, inputSchema }) => ({
            type: 'function',
            function: { name, description, parameters: inputSchema },
          })),
        }
      : {}),
    stream: true,
    ...(target.includeUsage ? { stream_options: { include_usage: true } } : {}),
  });
}

/** One message in the chat-completions shape: tool calls on the assistant's turn, results as `tool` messages. */
function toWireMessage(message: ModelMessage): Record<string, unknown> {
  switch (message.role) {
    case 'assistant':
      if (!message.toolCalls?.length) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // OpenAI's format: null, not '', when the turn is only tool calls.
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.toolCallId,
          type: 'function',
          function: { name: call.toolName, arguments: call.input },
        })),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

interface ChunkShape {
  choices?: {
    delta?: { content?: unknown; tool_calls?: unknown } | null;
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
}

/**
 * Reads one step's `chat.completion.chunk` events: returns each chunk's text, gathers the tool calls streamed in
 * `delta.tool_calls` and hands them out whole, in `ready` when the chunk with the finish reason arrives, or from
 * `end` for a server that never gives one. Written to the shapes servers send:
 *
 * - OpenAI, LM Studio: the first delta of a call has `index`, `id`, `function.name` and `arguments: ''`; later ones
 *   only `index` and argument fragments; several calls interleave by `index`.
 * - vLLM: the same, sometimes with `id` (and the name) repeated on every delta, or the arguments whole at once.
 * - Ollama: each call whole in one delta; finish reason `tool_calls`, or `stop` in older versions.
 * - llama.cpp server, proxies for Gemini and others: `index` may be missing; a delta without one continues the
 *   last call (or the call with its `id`) unless it names another tool.
 *
 * A new call starts at an unseen index, or when a delta names a tool and differs from the open call at its index
 * (another name, another id, or the same tool again once the open call's arguments are whole): servers that put
 * every call at index 0 exist. A call without an id gets one; without arguments, `{}`.
 */
class ChunkReader {
  /** Tool-call parts complete and not yet handed out. */
  readonly ready: ModelStreamPart[] = [];
  #open: OpenToolCall[] = [];
  #byIndex = new Map<number, OpenToolCall>();
  #byId = new Map<string, OpenToolCall>();
  #calls = 0;
  #finishReason: string | undefined;
  #usage: ModelUsage | undefined;

  /** The text of one event's chunk; throws what the AI SDK would for a bad or failed one. */
  deltaOf(data: string): string {
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
  end(): ModelStreamPart[] {
    this.#completeCalls();
    const finishReason: ModelFinishReason =
      this.#finishReason === undefined
        ? // A server that never said why: the step stopped, or went on to its tool calls.
          this.#calls > 0
          ? 'tool-calls'
          : 'stop'
        : toFinishReason(this.#finishReason);
    const finish: ModelStreamPart = this.#usage
      ? { type: 'finish', finishReason, usage: this.#usage }
      : { type: 'finish', finishReason };
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
      // Arguments as an object (Ollama's native shape, some proxies): their JSON text.
      else if (typeof args === 'object') args = JSON.stringify(args);
      else if (typeof args !== 'string') {
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
    }
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
    const call: OpenToolCall = { id: undefined, name: undefined, args: '', bytes: 0 };
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
      this.ready.push({
        type: 'tool-call',
        toolCallId: call.id ?? generateToolCallId(),
        toolName: call.name,
        input: call.args.trim() === '' ? '{}' : call.args,
      });
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

/** An error response's body as text, at most {@link MAX_ERROR_BODY} bytes of it. */
async function readLimited(response: http.IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of response as AsyncIterable<Buffer>) {
    if (size < MAX_ERROR_BODY) parts.push(part);
    size += part.length;
  }
  return Buffer.concat(parts).toString('utf8').slice(0, MAX_ERROR_BODY);
}
