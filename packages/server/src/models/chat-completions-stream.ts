import http from 'node:http';
import https from 'node:https';
import { APICallError } from '@ai-sdk/provider';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ModelMessage, ModelRequest, ModelStreamPart } from './model-provider';
import { replyDeadline } from './reply-deadline';
import { ChunkReader } from './chat-completion-chunks';

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
