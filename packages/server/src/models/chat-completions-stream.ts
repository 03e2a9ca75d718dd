import http from 'node:http';
import https from 'node:https';
import { APICallError } from '@ai-sdk/provider';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ModelMessage, ModelRequest, ModelStreamPartV2 } from './model-provider';
import { replyDeadline } from './reply-deadline';
import { ChunkReader } from './chat-completion-chunks';

/** Where and how to call an OpenAI-compatible chat-completions endpoint. */
export interface ChatCompletionsTarget {
  /** The full URL of `…/chat/completions`. */
  url: URL;
  model: string;
  apiKey?: string;
  /** Keep-alive connections to the model service, reused across replies (the node:http transport). */
  agent: http.Agent;
  /** When given, requests go through it instead of node:http (proxies, instrumentation). */
  fetch?: typeof globalThis.fetch;
  /** Whether the request's `tools` are sent; false for a server without tool support. */
  callsTools: boolean;
  /** Whether `stream_options: {include_usage: true}` is sent (see `OpenAICompatibleModelOptions.includeUsage`). */
  includeUsage: boolean;
}

/** The most of an error response's body kept (for the log, as the error's cause). */
const MAX_ERROR_BODY = 64 * 1024;

/** A keep-alive connection pool for one model service: bounded, idle connections closed after a while. */
export function createModelAgent(url: URL): http.Agent {
  const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 60_000 };
  return url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

/** An answer being received, whichever transport carries it. */
interface Answer {
  status: number;
  /** The body as text, in the pieces it arrives in. */
  pieces: AsyncIterator<string>;
  /** The body of an error answer, at most {@link MAX_ERROR_BODY} bytes of it. */
  errorBody(): Promise<string>;
  /** Ends the call: a finished answer keeps its connection; one stopped early or failed half-way is hung up. */
  close(finished: boolean): void;
}

/** One call as both transports take it: where, the request body, and the signal that hangs up on it. */
interface Call {
  target: ChatCompletionsTarget;
  body: string;
  signal: AbortSignal;
}

const requestBodyValuesOf = (target: ChatCompletionsTarget) => ({
  model: target.model,
  stream: true,
});

function headersOf(target: ChatCompletionsTarget): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'text/event-stream',
    ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}),
  };
}

function cannotConnect(target: ChatCompletionsTarget, cause: unknown): APICallError {
  return new APICallError({
    message: 'Cannot connect to the model service',
    url: target.url.href,
    requestBodyValues: requestBodyValuesOf(target),
    cause,
  });
}

/** The call over node:http with the target's keep-alive pool: the default, and the cheapest per reply. */
async function sendOverHttp({ target, body, signal }: Call): Promise<Answer> {
  let clientRequest: http.ClientRequest | undefined;
  // Kept until the call ends: a deadline or the caller aborting `signal` mid-answer hangs up on the request.
  const hangUp = () => clientRequest?.destroy(signal.reason as Error);
  signal.addEventListener('abort', hangUp, { once: true });
  const close = (finished: boolean) => {
    signal.removeEventListener('abort', hangUp);
    if (!finished) clientRequest?.destroy();
  };
  let response: http.IncomingMessage;
  try {
    response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const send = target.url.protocol === 'https:' ? https.request : http.request;
      clientRequest = send(target.url, {
        method: 'POST',
        agent: target.agent,
        headers: { ...headersOf(target), 'content-length': Buffer.byteLength(body) },
      });
      clientRequest.once('response', (response) => {
        // Read errors reach the caller's loop; this listener only keeps a late one from crashing the process.
        response.on('error', () => undefined);
        resolve(response);
      });
      // Kept for the request's whole life: a hang-up after the response began emits 'error' too, and an
      // 'error' without a listener would crash the process.
      clientRequest.on('error', (error) =>
        reject(signal.aborted ? error : cannotConnect(target, error)),
      );
      clientRequest.end(body);
    });
  } catch (error) {
    close(false);
    throw error;
  }
  response.setEncoding('utf8');
  return {
    status: response.statusCode ?? 0,
    pieces: (response as AsyncIterable<string>)[Symbol.asyncIterator](),
    errorBody: async () => {
      let text = '';
      for await (const piece of response as AsyncIterable<string>) {
        if (text.length < MAX_ERROR_BODY) text += piece;
      }
      return text.slice(0, MAX_ERROR_BODY);
    },
    close,
  };
}

/** The call through a replaced `fetch` (a proxy, instrumentation). */
async function sendThroughFetch(fetch: typeof globalThis.fetch, call: Call): Promise<Answer> {
  const { target, body, signal } = call;
  const stop = new AbortController();
  let response: Response;
  try {
    response = await fetch(target.url.href, {
      method: 'POST',
      headers: headersOf(target),
      body,
      signal: AbortSignal.any([signal, stop.signal]),
    });
  } catch (error) {
    throw signal.aborted ? error : cannotConnect(target, error);
  }
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  return {
    status: response.status,
    pieces: {
      next: async () => {
        if (!reader) return { done: true, value: undefined };
        const { done, value } = await reader.read();
        return done ? { done: true, value: undefined } : { done: false, value };
      },
    },
    errorBody: async () => {
      let text = '';
      for (;;) {
        const next = await reader?.read();
        if (!next || next.done) break;
        if (text.length < MAX_ERROR_BODY) text += next.value;
      }
      return text.slice(0, MAX_ERROR_BODY);
    },
    close: (finished) => {
      if (!finished) stop.abort();
    },
  };
}

/**
 * Streams one chat completion step, reading the server-sent events with `eventsource-parser` and
 * {@link ChunkReader}, nothing else: no web streams on the default transport, no per-chunk schema validation. The
 * default transport is node:http with a keep-alive pool; a replaced `fetch` in the target carries the same calls.
 * Yields reasoning and text as they come, each tool call once complete (see `ChunkReader`), then one `finish`
 * part. A failure is the stream's last part, an `error` (MODEL_ERROR, the AI SDK's error classes in `cause`,
 * mapped by `toModelError`); silence beyond `timeoutMs` before the first piece or between pieces is a `TIMEOUT`
 * error part (time the caller spends on a piece does not count); an aborted `signal` throws its reason; stopping
 * early or failing hangs up on the request. Never retried.
 */
export async function* streamChatCompletion(
  target: ChatCompletionsTarget,
  request: ModelRequest,
  timeoutMs: number,
): AsyncGenerator<ModelStreamPartV2, void, undefined> {
  const deadline = replyDeadline(request.signal, timeoutMs);
  const body = toRequestBody(target, request);
  const url = target.url.href;
  const requestBodyValues = requestBodyValuesOf(target);
  const abortSignal = deadline.signal;
  let finished = false;
  let failure: { error: unknown } | undefined;
  let tail: ModelStreamPartV2[] = [];
  let answer: Answer | undefined;
  deadline.arm();
  try {
    const call = { target, body, signal: abortSignal };
    answer = await (target.fetch ? sendThroughFetch(target.fetch, call) : sendOverHttp(call));
    const { status } = answer;
    if (status < 200 || status >= 300) {
      throw new APICallError({
        message: `HTTP ${status}`,
        url,
        requestBodyValues,
        statusCode: status,
        responseBody: await answer.errorBody(),
        isRetryable: false,
      });
    }
    const events: string[] = [];
    const parser = createParser({
      onEvent: (event: EventSourceMessage) => events.push(event.data),
    });
    let done = false;
    const reader = new ChunkReader();
    for (;;) {
      let next: IteratorResult<string>;
      try {
        next = await answer.pieces.next();
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
        if (reader.reasoning !== '') yield { type: 'reasoning-delta', delta: reader.reasoning };
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
    failure = { error: deadline.settle(error) };
  } finally {
    deadline.pause();
    // Hangs up when the consumer stopped early or the stream failed half-way; a finished one keeps its socket.
    answer?.close(finished);
  }
  if (!failure && deadline.cutShort()) failure = { error: deadline.settle(undefined) };
  if (failure) {
    // The caller's own abort is thrown, as every model throws it; the model service's failure is a part.
    if (request.signal?.aborted) throw failure.error;
    yield { type: 'error', error: failure.error };
    return;
  }
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
