import { STATUS_CODES } from 'node:http';
import { Writable } from 'node:stream';
import type { HeaderValue, HttpRouteResponse, SendFileOptions } from '@parley/plugin-sdk';
import { BODYLESS_STATUSES, checkStatus } from './http-status';
import { ResponseHeaders } from './response-headers';
import { sendRouteFile } from './send-route-file';
import { isBinary, toBodyBytes } from './to-body-bytes';

/** What a {@link PluginRouteResponse} reports to its owner. */
export interface PluginRouteResponseHooks {
  /** A write that came too late (after the response was sent, or after a timeout); it was dropped. */
  onIgnoredWrite(what: string): void;
  /** The response stream failed (for example a write after `end`, or the client went away mid-stream). */
  onStreamError(error: Error): void;
}

/** How long a streamed body may buffer ahead of the client before `write` returns false. */
const STREAM_HIGH_WATER_MARK = 64 * 1024;

/** Express's short content type names. */
const TYPE_ALIASES: Record<string, string> = {
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  bin: 'application/octet-stream',
};

type Callback = (error?: Error | null) => void;

function splitCallback(args: unknown[]): [unknown[], Callback | undefined] {
  const last = args.at(-1);
  if (typeof last !== 'function') return [args, undefined];
  return [args.slice(0, -1), last as Callback];
}

/**
 * The response a plugin handler writes: Node's `ServerResponse` and Express's response, over a fetch `Response`.
 *
 * - A body given whole (`json`, `send`, `end(body)`, `redirect`, `sendStatus`) becomes a plain body.
 * - `write`, `flushHeaders`, `pipe` into it and `sendFile` stream the body; the stream stays open until `end`
 *   (server-sent events), with backpressure: `write` returns false while the client lags, then `drain` follows.
 * - Only the first send counts; later writes are dropped and reported, never thrown at the handler, because they
 *   often come from callbacks where a throw would take the process down.
 */
export class PluginRouteResponse extends Writable implements HttpRouteResponse {
  statusMessage = '';
  locals: Record<string, unknown> = {};
  /** Resolves with the HTTP response once the handler has sent (or started streaming). */
  readonly committed: Promise<Response>;
  readonly #headers = new ResponseHeaders();
  readonly #hooks: PluginRouteResponseHooks;
  #statusCode = 200;
  #statusSet = false;
  #headWritten = false;
  #response: Response | undefined;
  #closed = false;
  #sendingFile = false;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #waitingWrite: Callback | undefined;
  #resolveCommitted!: (response: Response) => void;

  constructor(hooks: PluginRouteResponseHooks) {
    super();
    this.#hooks = hooks;
    this.committed = new Promise((resolve) => (this.#resolveCommitted = resolve));
    // A stream error with no listener would crash the process; report it instead.
    this.on('error', (error) => hooks.onStreamError(error));
  }

  get statusCode(): number {
    return this.#statusCode;
  }

  set statusCode(code: number) {
    this.#statusCode = code;
    this.#statusSet = true;
  }

  get headersSent(): boolean {
    return this.#headWritten || this.#response !== undefined;
  }

  /** Whether an answer is on its way although the handler returned (`sendFile` reads the file first). */
  get isSendPending(): boolean {
    return this.#sendingFile && this.#response === undefined;
  }

  /** Whether the HTTP response exists (the handler sent, or started streaming). */
  get isCommitted(): boolean {
    return this.#response !== undefined;
  }

  status(code: number): this {
    checkStatus(code);
    if (this.#headerWritable('status')) this.statusCode = code;
    return this;
  }

  setHeader(name: string, value: HeaderValue): this {
    if (this.#headerWritable('setHeader')) this.#headers.set(name, value);
    return this;
  }

  getHeader(name: string): HeaderValue | undefined {
    return this.#headers.get(name);
  }

  getHeaders(): Record<string, HeaderValue> {
    return this.#headers.toObject();
  }

  hasHeader(name: string): boolean {
    return this.#headers.has(name);
  }

  removeHeader(name: string): void {
    if (this.#headerWritable('removeHeader')) this.#headers.delete(name);
  }

  set(name: string | Record<string, HeaderValue>, value?: HeaderValue): this {
    if (typeof name === 'string') return this.setHeader(name, value ?? '');
    if (this.#headerWritable('set')) this.#headers.setAll(name);
    return this;
  }

  header(name: string, value: HeaderValue): this {
    return this.setHeader(name, value);
  }

  type(type: string): this {
    const alias = TYPE_ALIASES[type.replace(/^\./, '').toLowerCase()];
    return this.setHeader('content-type', alias ?? type);
  }

  writeHead(
    status: number,
    messageOrHeaders?: string | Record<string, HeaderValue> | readonly string[],
    headers?: Record<string, HeaderValue> | readonly string[],
  ): this {
    checkStatus(status);
    if (!this.#headerWritable('writeHead')) return this;
    this.statusCode = status;
    if (typeof messageOrHeaders === 'string') this.statusMessage = messageOrHeaders;
    const fields = typeof messageOrHeaders === 'string' ? headers : messageOrHeaders;
    if (fields) this.#headers.setAll(fields);
    this.#headWritten = true;
    return this;
  }

  flushHeaders(): void {
    if (this.#response === undefined && !this.#closed) this.#commitStream();
  }

  json(body: unknown): this {
    if (!this.#bodyWritable('json')) return this;
    this.#defaultType('application/json; charset=UTF-8');
    return this.end(JSON.stringify(body) ?? 'null');
  }

  send(body?: unknown): this {
    if (!this.#bodyWritable('send')) return this;
    if (body === undefined) return this.end();
    if (typeof body === 'string') {
      // Plain text by default, not HTML: a handler echoing input must not become an injection vector.
      this.#defaultType('text/plain; charset=UTF-8');
      return this.end(body);
    }
    if (isBinary(body)) {
      this.#defaultType('application/octet-stream');
      return this.end(toBodyBytes(body));
    }
    return this.json(body);
  }

  sendStatus(code: number): this {
    return this.status(code).send(STATUS_CODES[code] ?? String(code));
  }

  redirect(statusOrUrl: number | string, url?: string): void {
    const status = typeof statusOrUrl === 'number' ? statusOrUrl : 302;
    const location = typeof statusOrUrl === 'number' ? url : statusOrUrl;
    if (typeof location !== 'string') throw new TypeError('redirect needs a URL');
    this.status(status).setHeader('location', location).send(`Redirecting to ${location}`);
  }

  sendFile(
    path: string,
    optionsOrCallback?: SendFileOptions | ((error?: Error) => void),
    callback?: (error?: Error) => void,
  ): void {
    const options = typeof optionsOrCallback === 'object' ? optionsOrCallback : {};
    const done = typeof optionsOrCallback === 'function' ? optionsOrCallback : callback;
    if (!this.#bodyWritable('sendFile')) return;
    this.#sendingFile = true;
    sendRouteFile(this, path, options, done);
  }

  override write(...args: unknown[]): boolean {
    const sentWhole = this.#response !== undefined && this.#controller === undefined;
    if (this.#closed || this.writableEnded || sentWhole) {
      this.#hooks.onIgnoredWrite('write');
      return false;
    }
    if (this.#response === undefined) this.#commitStream();
    if (this.#controller === undefined) {
      // A bodyless status (204, 304): nothing can be written.
      this.#hooks.onIgnoredWrite('write');
      return false;
    }
    return (super.write as (...values: unknown[]) => boolean)(...args);
  }

  override end(...values: unknown[]): this {
    const [args, callback] = splitCallback(values);
    if (this.#closed || this.writableEnded) {
      this.#hooks.onIgnoredWrite('end');
      return this;
    }
    const [chunk, encoding] = args;
    if (this.#response === undefined) {
      this.#commit(chunk === undefined || chunk === null ? null : toBodyBytes(chunk, encoding));
      return super.end(callback);
    }
    if (chunk === undefined || chunk === null || this.#controller === undefined)
      return super.end(callback);
    return super.end(chunk, encoding as BufferEncoding, callback);
  }

  /**
   * Answers a handler that returned without sending: 204, or the status it set with no body. A handler that
   * fixed its head (`writeHead`) streams instead, so that it can write later.
   */
  finishUnsent(): void {
    if (this.#response !== undefined || this.#closed) return;
    if (this.#headWritten) return this.flushHeaders();
    if (!this.#statusSet) this.#statusCode = 204;
    this.end();
  }

  /** Refuses every later write (a timeout, or a failure before anything was sent). */
  close(): void {
    this.#closed = true;
  }

  /** Ends a streamed body abruptly after a handler failure, so that the client sees it was cut off. */
  abort(error: Error): void {
    this.#closed = true;
    if (this.#controller && !this.writableFinished) this.destroy(error);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: Callback): void {
    const controller = this.#controller;
    if (!controller) return callback();
    try {
      controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } catch (error) {
      return callback(error as Error);
    }
    if ((controller.desiredSize ?? 1) > 0) callback();
    else this.#waitingWrite = callback;
  }

  override _final(callback: Callback): void {
    try {
      this.#controller?.close();
    } catch {
      // The client already went away; nothing is left to close.
    }
    callback();
  }

  override _destroy(error: Error | null, callback: Callback): void {
    try {
      // A finished body is complete; anything else was cut off and must not look complete to the client.
      if (!this.writableFinished) this.#controller?.error(error ?? new Error('Response closed'));
    } catch {
      // Already closed or cancelled.
    }
    this.#releaseWrite();
    callback(error);
  }

  #releaseWrite(): void {
    const waiting = this.#waitingWrite;
    this.#waitingWrite = undefined;
    waiting?.();
  }

  #headerWritable(what: string): boolean {
    if (!this.#closed && !this.headersSent) return true;
    this.#hooks.onIgnoredWrite(what);
    return false;
  }

  #bodyWritable(what: string): boolean {
    if (!this.#closed && this.#response === undefined && !this.writableEnded) return true;
    this.#hooks.onIgnoredWrite(what);
    return false;
  }

  #defaultType(type: string): void {
    if (!this.headersSent && !this.#headers.has('content-type'))
      this.#headers.set('content-type', type);
  }

  #commit(body: ConstructorParameters<typeof Response>[0]): void {
    const status = checkStatus(this.#statusCode);
    this.#response = new Response(BODYLESS_STATUSES.has(status) ? null : body, {
      status,
      statusText: this.statusMessage || undefined,
      headers: this.#headers.toHeaders(),
    });
    this.#resolveCommitted(this.#response);
  }

  #commitStream(): void {
    if (BODYLESS_STATUSES.has(checkStatus(this.#statusCode))) return this.#commit(null);
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => this.#releaseWrite(),
        // The client went away: 'close' tells the handler to stop (server-sent events clean up on it).
        cancel: () => {
          this.#controller = undefined;
          this.destroy();
        },
      },
      { highWaterMark: STREAM_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
    );
    this.#commit(body);
  }
}
