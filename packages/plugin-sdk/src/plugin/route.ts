import type { RouteType } from '@parley/core';
import type { AgentRuntime } from './runtime';

/** A file received by a multipart route. */
export interface UploadedFile {
  originalname: string;
  size: number;
  mimetype: string;
  /** The file's bytes. */
  buffer: Uint8Array;
}

/** The request a route handler receives. */
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
  /** The uploaded file on multipart routes. */
  file?: UploadedFile;
}

/** The response a route handler writes. */
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

/** A route handler. The runtime is the serving agent's. */
export type RouteHandler<Body = unknown> = (
  request: RouteRequest<Body>,
  response: RouteResponse,
  runtime: AgentRuntime,
) => Promise<void> | void;

/** A route a plugin declares; served at `{base_url}{path}`. */
export interface Route<Body = unknown> {
  /** HTTP method, or STATIC for static file serving. */
  type: RouteType;
  /** Path, starting with `/`; `:name` segments become `request.params.name`. */
  path: string;
  /** Request handler (required unless STATIC). */
  handler?: RouteHandler<Body>;
  /** File or folder served by a STATIC route. */
  filePath?: string;
  /** Whether the route stays open when the server requires an API key. */
  public?: boolean;
  /** Route name, for logs. */
  name?: string;
  /** Whether the route accepts one uploaded file as multipart form data. */
  isMultipart?: boolean;
  /** Per-route handler timeout in milliseconds (default: the server's route timeout). */
  timeoutMs?: number;
}
