import type { RouteType } from '@parley/core';
import type { AgentRuntime } from './runtime';

/** A file received by a multipart route (multer's memory-storage shape). */
export interface UploadedFile {
  /** The form field the file came in. */
  fieldname?: string;
  originalname: string;
  size: number;
  mimetype: string;
  /** The file's bytes. */
  buffer: Uint8Array;
}

/**
 * The request a route handler receives, version 1 of the contract: what every Parley version offers. At run
 * time a handler always gets the larger {@link HttpRouteRequest}.
 */
export interface RouteRequest<Body = unknown> {
  method: string;
  /** The request path, without the query. */
  path: string;
  /** Headers with lower-case names. */
  headers: Record<string, string | undefined>;
  /** Parsed body: JSON, form fields, or text; undefined when there is none. */
  body: Body;
  /** The body's exact bytes, for signature checks. */
  rawBody: Uint8Array;
  /** `:param` segments of the route path. */
  params: Record<string, string>;
  /** Query string values (the last one wins when a key repeats). */
  query: Record<string, string>;
  /** The (first) uploaded file on multipart routes. */
  file?: UploadedFile;
}

/**
 * The response a route handler writes, version 1 of the contract. At run time a handler always gets the larger
 * {@link HttpRouteResponse}.
 */
export interface RouteResponse {
  /** Sets the status code; chainable. */
  status(code: number): RouteResponse;
  /** Sets a response header; chainable. */
  setHeader(name: string, value: string): RouteResponse;
  /** Sends a JSON body. */
  json(body: unknown): void;
  /** Sends a text or binary body. */
  send(body: string | Uint8Array): void;
}

/** A header value as Node's `response.setHeader` takes it. */
export type HeaderValue = string | number | readonly string[];

/**
 * The request as Express-style plugins (elizaOS plugins among them) use it: version 1 plus the URL, client
 * address, all uploaded files, the serving agent's runtime, and the body as a readable stream, so that a route
 * can parse its own upload (`multer`, `busboy`: `req.pipe(parser)`, `req.on('data')`).
 *
 * The body is read (within the route's body limit) before the handler runs; the stream replays those bytes.
 */
export interface HttpRouteRequest<Body = unknown>
  extends RouteRequest<Body>, NodeJS.ReadableStream {
  /** Path and query as received, e.g. `/search?q=x`. */
  url: string;
  /** The same as `url` (plugin routes are never mounted below a prefix). */
  originalUrl: string;
  /** Always `''`: plugin routes are served at exactly their path. */
  baseUrl: string;
  /** The client's address, when known. */
  ip: string | undefined;
  /** Every uploaded file on multipart routes, in form order. */
  files?: UploadedFile[];
  /** The serving agent's runtime (the handler's third argument), as some elizaOS plugins read it. */
  runtime: AgentRuntime;
  /** True: the body has been received. */
  readonly complete: boolean;
  /** A request header by case-insensitive name (Express `req.get`). */
  get(name: string): string | undefined;
  /** Alias of {@link HttpRouteRequest.get}. */
  header(name: string): string | undefined;
}

/** Options of {@link HttpRouteResponse.sendFile}. */
export interface SendFileOptions {
  /** Folder `path` is relative to; without it `path` must be absolute and its folder is the root. */
  root?: string;
  /** Extra response headers. */
  headers?: Record<string, HeaderValue>;
}

/**
 * The response as Express-style plugins use it: version 1 plus Node's and Express's response members, and a
 * writable stream (`res.write`, `stream.pipe(res)`, server-sent events). Chainable members return the response.
 */
export interface HttpRouteResponse extends RouteResponse, NodeJS.WritableStream {
  /** The status that will be sent (default 200). Settable. */
  statusCode: number;
  /** The reason phrase, when set. */
  statusMessage: string;
  /** Whether the status and headers are fixed: after `writeHead`, the first write, or a send. */
  readonly headersSent: boolean;
  /** Free per-request storage, as Express offers it. */
  locals: Record<string, unknown>;
  status(code: number): this;
  setHeader(name: string, value: HeaderValue): this;
  /** A header as set, by case-insensitive name. */
  getHeader(name: string): HeaderValue | undefined;
  /** Every header set, with lower-case names. */
  getHeaders(): Record<string, HeaderValue>;
  hasHeader(name: string): boolean;
  removeHeader(name: string): void;
  /** Express `res.set`: one header, or several from an object. */
  set(name: string, value: HeaderValue): this;
  set(fields: Record<string, HeaderValue>): this;
  /** Alias of `set(name, value)`. */
  header(name: string, value: HeaderValue): this;
  /** Sets the content type: a MIME type, or a short name such as `json`, `html`, `text`. */
  type(type: string): this;
  /** Sets the status and headers and fixes them (Node `writeHead`). */
  writeHead(status: number, headers?: Record<string, HeaderValue> | readonly string[]): this;
  writeHead(
    status: number,
    statusMessage: string,
    headers?: Record<string, HeaderValue> | readonly string[],
  ): this;
  /** Sends the headers now and keeps the body open for `write` (server-sent events). */
  flushHeaders(): void;
  /** Sends a JSON body. */
  json(body: unknown): this;
  /**
   * Sends a body: a string as `text/plain` (unless a content type is set), bytes as
   * `application/octet-stream`, anything else (objects, arrays, numbers, booleans, null) as JSON.
   */
  send(body?: unknown): this;
  /** Sends the status with its reason phrase as the body. */
  sendStatus(code: number): this;
  /** Redirects (default 302). */
  redirect(url: string): void;
  redirect(status: number, url: string): void;
  /**
   * Streams a file, under the same rules as STATIC routes: nothing outside the root (symlinks resolved), no
   * dotfiles below it. A missing or refused file calls `callback` with an error, or answers 404 without one.
   */
  sendFile(path: string, callback?: (error?: Error) => void): void;
  sendFile(path: string, options: SendFileOptions, callback?: (error?: Error) => void): void;
}

/** A route handler written against version 1 of the contract. The runtime is the serving agent's. */
export type RouteHandler<Body = unknown> = (
  request: RouteRequest<Body>,
  response: RouteResponse,
  runtime: AgentRuntime,
) => Promise<void> | void;

/** A route handler that uses the Express-style request and response (what every handler receives). */
export type HttpRouteHandler<Body = unknown> = (
  request: HttpRouteRequest<Body>,
  response: HttpRouteResponse,
  runtime: AgentRuntime,
) => unknown;

/** A route a plugin declares; served at `{base_url}{path}`. */
export interface Route<Body = unknown> {
  /** HTTP method, or STATIC for static file serving. */
  type: RouteType;
  /** Path, starting with `/`; `:name` segments become `request.params.name`; a final `*` matches the rest. */
  path: string;
  /**
   * Request handler (required unless STATIC). Declared as a method so that a handler typed with
   * {@link HttpRouteRequest} and {@link HttpRouteResponse} (what it receives at run time) fits as well.
   */
  handler?(
    request: RouteRequest<Body>,
    response: RouteResponse,
    runtime: AgentRuntime,
  ): Promise<void> | void;
  /** File or folder served by a STATIC route. */
  filePath?: string;
  /** Whether the route stays open when the server requires an API key. */
  public?: boolean;
  /** Route name, for logs. */
  name?: string;
  /** Whether the route accepts uploaded files as multipart form data (`request.file`, `request.files`). */
  isMultipart?: boolean;
  /** Per-route handler timeout in milliseconds (default: the server's route timeout). */
  timeoutMs?: number;
  /**
   * Largest request body this route accepts, in bytes, uploads included (at most 100 MiB). Default: the
   * server's body limit (1 MiB), or its upload limit (10 MiB) for `multipart/form-data` bodies. Over it: 413.
   */
  bodyLimit?: number;
}

/** A route whose handler is typed with the Express-style request and response; see {@link defineRoute}. */
export interface HttpRoute<Body = unknown> extends Omit<Route<Body>, 'handler'> {
  handler?: HttpRouteHandler<Body>;
}
