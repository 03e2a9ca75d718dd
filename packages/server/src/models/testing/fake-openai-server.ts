import { HASH_EMBEDDING_DIMENSIONS, hashEmbedding } from '../embeddings/hash-embeddings';
import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
  createServer,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { toCompletionBody, toSseEvents } from './chat-completion-bodies';

/** A chat message as the fake server receives it. */
export interface FakeChatMessage {
  role: string;
  content: unknown;
}

/**
 * How the fake server answers: `ok` streams the reply; `fail` answers 500 with a JSON error; `slow` waits
 * `delayMs` before the first byte, then answers like `ok`; `malformed` sends an event stream of garbage; `cut`
 * streams the first half of the reply and then drops the connection, as a crashing upstream does.
 */
export type FakeOpenAIServerMode = 'ok' | 'fail' | 'slow' | 'malformed' | 'cut';

/** Options of {@link startFakeOpenAIServer}. */
export interface FakeOpenAIServerOptions {
  /** The reply text, or a function of the request's messages. Default `Hello from the fake model.` */
  reply?: string | ((messages: FakeChatMessage[]) => string);
  /** Characters per streamed chunk. Default 8. */
  chunkSize?: number;
  /** Default `ok`. */
  mode?: FakeOpenAIServerMode;
  /** Wait before the first byte in `slow` mode. Default 1000. */
  delayMs?: number;
  /** Pause between streamed chunks, so a client can act mid-stream. Default 0: the body is sent at once. */
  chunkDelayMs?: number;
  /**
   * A scripted answer to streaming requests instead of `reply`: the event-stream text to send, in the pieces
   * given (each piece written on its own, `chunkDelayMs` apart when set), or a function of the request's body (for
   * a conversation over several requests, e.g. tool calls and then text). See `toChunkEvent` and `stream-shapes/`.
   */
  events?: readonly string[] | ((body: Record<string, unknown>) => readonly string[]);
  /** Called with each chat request's headers and parsed body, for tests that check what a client sent. */
  onRequest?: (request: { headers: IncomingHttpHeaders; body: unknown }) => void;
  /** Called when a chat request ends: `completed` when the whole answer was sent, `aborted` when the client hung up first. */
  onRequestEnd?: (outcome: 'completed' | 'aborted') => void;
  /** Length of the vectors `/v1/embeddings` answers (the offline embedder's hashing, deterministic). Default 384. */
  embeddingDimensions?: number;
  /** How many `/v1/embeddings` requests answer `429` (with `Retry-After: 0`) before the first success. Default 0. */
  embeddingFailures?: number;
}

/** A running fake server. */
export interface FakeOpenAIServer {
  /** Base URL to give a client, e.g. `http://127.0.0.1:41234/v1`; requests go to `{url}/chat/completions`. */
  readonly url: string;
  /** Chat requests received so far. */
  readonly requests: number;
  /** `/v1/embeddings` requests received so far, and the texts they carried. */
  readonly embeddingRequests: number;
  readonly embeddedTexts: number;
  /** Stops the server, cutting open connections. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const DEFAULT_REPLY = 'Hello from the fake model.';
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
} as const;
const JSON_HEADERS = { 'content-type': 'application/json' } as const;
const FAILURE_BODY = JSON.stringify({
  error: { message: 'fake upstream failure: internal detail', type: 'server_error', code: null },
});
const MALFORMED_BODY =
  'data: {"id":"chatcmpl-fake","choices":[{"delta":{"content":\n\ndata: %%garbage%%\n\n';
const NOT_FOUND_BODY = JSON.stringify({
  error: { message: 'not found', type: 'invalid_request_error' },
});

async function readJson(request: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8'));
}

/**
 * Starts a local OpenAI-compatible chat-completions server on 127.0.0.1 (a free port), for tests and the
 * benchmark. It speaks the streaming protocol (`data: {…chat.completion.chunk…}` events, then `data: [DONE]`)
 * and the non-streaming one. A fixed reply is encoded once at start, so the server adds as little as possible
 * to what a benchmark measures.
 *
 * @example
 * await using upstream = await startFakeOpenAIServer({ reply: 'Hi there' });
 * const model = createOpenAICompatibleModel({ baseUrl: upstream.url, model: 'fake-model' });
 */
export async function startFakeOpenAIServer(
  options: FakeOpenAIServerOptions = {},
): Promise<FakeOpenAIServer> {
  const { mode = 'ok', chunkSize = 8, delayMs = 1000, chunkDelayMs = 0 } = options;
  const { onRequest, onRequestEnd } = options;
  const reply = options.reply ?? DEFAULT_REPLY;
  const scripted = options.events;
  const fixed =
    typeof reply === 'string' && scripted === undefined
      ? { events: toSseEvents(reply, chunkSize), completion: toCompletionBody(reply) }
      : undefined;
  const fixedStream = fixed && Buffer.from(fixed.events.join(''));
  let requests = 0;
  let embeddingRequests = 0;
  let embeddedTexts = 0;
  let embeddingFailures = options.embeddingFailures ?? 0;

  /** `POST /v1/embeddings`: one vector per input, as OpenAI answers (`data[].embedding`, `index`). */
  async function embeddings(request: IncomingMessage, response: ServerResponse) {
    embeddingRequests++;
    const body = (await readJson(request)) as { input?: unknown; model?: unknown };
    if (embeddingFailures > 0) {
      embeddingFailures--;
      response.writeHead(429, { ...JSON_HEADERS, 'retry-after': '0' }).end(FAILURE_BODY);
      return;
    }
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || !inputs.every((input) => typeof input === 'string')) {
      response.writeHead(400, JSON_HEADERS).end(NOT_FOUND_BODY);
      return;
    }
    embeddedTexts += inputs.length;
    const dimensions = options.embeddingDimensions ?? HASH_EMBEDDING_DIMENSIONS;
    response.writeHead(200, JSON_HEADERS).end(
      JSON.stringify({
        object: 'list',
        model: body.model,
        data: inputs.map((input, index) => ({
          object: 'embedding',
          index,
          embedding: hashEmbedding(input, dimensions),
        })),
        usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
      }),
    );
  }

  /** The event-stream pieces for a streaming request. */
  function eventsFor(body: Record<string, unknown>): readonly string[] {
    if (scripted !== undefined) return typeof scripted === 'function' ? scripted(body) : scripted;
    return fixed?.events ?? toSseEvents(replyTo(body), chunkSize);
  }

  function sendStream(response: ServerResponse, events: readonly string[]) {
    response.writeHead(200, SSE_HEADERS);
    if (chunkDelayMs <= 0 || events.length === 0) {
      if (scripted === undefined) {
        response.end(events.join(''));
        return;
      }
      // Scripted pieces go out as written, each on its own, so a client meets events split where the script says.
      for (const event of events) response.write(event);
      response.end();
      return;
    }
    let index = 0;
    const timer = setInterval(() => {
      response.write(events[index++]);
      if (index === events.length) {
        clearInterval(timer);
        response.end();
      }
    }, chunkDelayMs);
    response.write(events[index++]);
    response.once('close', () => clearInterval(timer));
  }

  function answer(response: ServerResponse, body: Record<string, unknown>) {
    if (mode === 'fail') {
      response.writeHead(500, JSON_HEADERS).end(FAILURE_BODY);
    } else if (mode === 'malformed') {
      response.writeHead(200, SSE_HEADERS).end(MALFORMED_BODY);
    } else if (mode === 'cut') {
      const events = eventsFor(body);
      response.writeHead(200, SSE_HEADERS);
      response.write(events.slice(0, Math.max(1, events.length >> 1)).join(''));
      setTimeout(() => response.destroy(), 20);
    } else if (body.stream === true && fixedStream && chunkDelayMs <= 0) {
      response.writeHead(200, SSE_HEADERS).end(fixedStream);
    } else if (body.stream === true) {
      sendStream(response, eventsFor(body));
    } else {
      response
        .writeHead(200, JSON_HEADERS)
        .end(fixed?.completion ?? toCompletionBody(replyTo(body)));
    }
  }

  function replyTo(body: { messages?: unknown }): string {
    const messages = Array.isArray(body.messages) ? (body.messages as FakeChatMessage[]) : [];
    return typeof reply === 'function' ? reply(messages) : reply;
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    if (request.method === 'POST' && request.url?.endsWith('/embeddings')) {
      await embeddings(request, response);
      return;
    }
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      response.writeHead(404, JSON_HEADERS).end(NOT_FOUND_BODY);
      return;
    }
    requests++;
    if (onRequestEnd) {
      response.once('close', () =>
        onRequestEnd(response.writableFinished ? 'completed' : 'aborted'),
      );
    }
    const body = (await readJson(request)) as Record<string, unknown>;
    onRequest?.({ headers: request.headers, body });
    if (mode !== 'slow') {
      answer(response, body);
      return;
    }
    const timer = setTimeout(() => answer(response, body), delayMs);
    response.once('close', () => clearTimeout(timer));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(400, JSON_HEADERS);
      response.end(
        JSON.stringify({ error: { message: 'bad request', type: 'invalid_request_error' } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  async function close() {
    if (!server.listening) return;
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      server.close((error) => (error ? reject(error) : resolve())),
    );
  }

  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    get embeddingRequests() {
      return embeddingRequests;
    },
    get embeddedTexts() {
      return embeddedTexts;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
