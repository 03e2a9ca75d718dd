const encoder = new TextEncoder();

/** Headers that make every proxy and browser deliver each event the moment it is written. */
const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** A server-sent event stream being written. */
export interface SseStream {
  /** The response to return from the handler. */
  readonly response: Response;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** Writes one event block (`event:`, `id:`, `data:` lines). Ignored once closed. */
  send(event: string, data: unknown, id?: string): void;
  /** Ends the stream. */
  close(): void;
}

/** An SSE stream that also writes unnamed events, as OpenAI's streams are. */
export interface DataSseStream extends SseStream {
  /** Writes one unnamed event: a `data:` line of `data` as JSON, or of the text as given (`[DONE]`). */
  sendData(data: unknown): void;
}

/** How long a client waits before it reconnects after a dropped connection (the SSE `retry:` field), in ms. */
export const SSE_RETRY_MS = 1000;

/**
 * Creates a server-sent event response whose events are flushed as they are written, with a keep-alive
 * comment every `keepAliveMs` so that idle proxies do not cut a slow reply. It opens with `retry:`, so that
 * a standard EventSource reconnects promptly, with `Last-Event-ID`, after a dropped connection.
 */
export function createSseStream(keepAliveMs: number, status = 200): DataSseStream {
  const aborter = new AbortController();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const stop = () => {
    closed = true;
    clearInterval(keepAlive);
  };
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: () => {
      stop();
      aborter.abort(new Error('client disconnected'));
    },
  });
  const write = (text: string) => {
    if (closed) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      stop();
    }
  };
  const keepAlive = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
  keepAlive.unref();
  write(`retry: ${SSE_RETRY_MS}\n\n`);

  return {
    response: new Response(body, { status, headers: SSE_HEADERS }),
    signal: aborter.signal,
    send(event, data, id) {
      const idLine = id === undefined ? '' : `id: ${id}\n`;
      write(`event: ${event}\n${idLine}data: ${JSON.stringify(data)}\n\n`);
    },
    sendData(data) {
      write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    },
    close() {
      if (closed) return;
      stop();
      try {
        controller.close();
      } catch {
        // Already closed by a cancel: nothing left to end.
      }
    },
  };
}
