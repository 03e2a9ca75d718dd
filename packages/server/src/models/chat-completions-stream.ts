import http from 'node:http';
import https from 'node:https';
import { ParleyError } from '@parley/core';
import { APICallError, JSONParseError, TypeValidationError } from '@ai-sdk/provider';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ModelRequest } from './model-provider';
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
}

/** The most of an error response's body kept (for the log, as the error's cause). */
const MAX_ERROR_BODY = 64 * 1024;

/** A keep-alive connection pool for one model service: bounded, idle connections closed after a while. */
export function createModelAgent(url: URL): http.Agent {
  const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 60_000 };
  return url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

/**
 * Streams one chat completion's text over node:http with a keep-alive pool, reading the server-sent events
 * with `eventsource-parser` and nothing else: no web streams, no per-chunk schema validation. Behaves as the
 * AI SDK path did: failures throw `MODEL_ERROR` (the AI SDK's error classes in `cause`, mapped by
 * `toModelError`), silence beyond `timeoutMs` before the first piece or between pieces throws `TIMEOUT`
 * (time the caller spends on a piece does not count), an aborted `signal` throws its reason, and stopping
 * early or failing hangs up on the request. Never retried.
 */
export async function* streamChatCompletion(
  target: ChatCompletionsTarget,
  request: ModelRequest,
  timeoutMs: number,
): AsyncGenerator<string, void, undefined> {
  const deadline = replyDeadline(request.signal, timeoutMs);
  const body = JSON.stringify({
    model: target.model,
    messages: request.messages.map(({ role, content }) => ({ role, content })),
    stream: true,
  });
  const url = target.url.href;
  const requestBodyValues = { model: target.model, stream: true };
  const abortSignal = deadline.signal;
  let finished = false;
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
        const delta = deltaOf(data);
        if (delta !== '') yield delta;
      }
      deadline.arm();
    }
    finished = true;
  } catch (error) {
    throw deadline.settle(error);
  } finally {
    deadline.pause();
    abortSignal.removeEventListener('abort', hangUp);
    // Hangs up when the consumer stopped early or the stream failed half-way; a finished one keeps its socket.
    if (!finished) clientRequest?.destroy();
  }
  if (deadline.cutShort()) throw deadline.settle(undefined);
}

interface ChunkShape {
  choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[];
  error?: unknown;
}

/** The text of one `chat.completion.chunk` event; throws what the AI SDK would for a bad or failed one. */
function deltaOf(data: string): string {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch (cause) {
    throw new JSONParseError({ text: data, cause });
  }
  if (typeof chunk !== 'object' || chunk === null) {
    throw new TypeValidationError({ value: chunk, cause: new Error('not an object') });
  }
  const { choices, error } = chunk as ChunkShape;
  // An error object inside the stream, as an OpenAI-compatible server reports a failure mid-answer.
  if (error !== undefined && error !== null) throw toModelError(error);
  if (!Array.isArray(choices)) {
    throw new TypeValidationError({ value: chunk, cause: new Error('no choices') });
  }
  const choice = choices[0];
  if (choice?.finish_reason === 'error') {
    throw new ParleyError('MODEL_ERROR', 'The model service ended the answer with an error');
  }
  const content = choice?.delta?.content;
  if (content === undefined || content === null) return '';
  if (typeof content !== 'string') {
    throw new TypeValidationError({ value: chunk, cause: new Error('content is not text') });
  }
  return content;
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
