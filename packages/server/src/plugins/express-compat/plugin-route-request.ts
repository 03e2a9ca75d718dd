import { Buffer } from 'node:buffer';
import { Readable } from 'node:stream';
import type { AgentRuntime, HttpRouteRequest, UploadedFile } from '@parley/plugin-sdk';

/** What a {@link PluginRouteRequest} is made of. */
export interface PluginRouteRequestInit {
  method: string;
  /** Path and query as received. */
  url: string;
  path: string;
  headers: Record<string, string | undefined>;
  body: unknown;
  rawBody: Uint8Array;
  params: Record<string, string>;
  query: Record<string, string>;
  file?: UploadedFile;
  files?: UploadedFile[];
  ip: string | undefined;
  runtime: AgentRuntime;
}

/**
 * The request a plugin handler receives: the parsed parts of the contract plus the body as a readable stream of
 * the bytes already received, so that Express-style code that parses its own body (`req.pipe(busboy)`,
 * `req.on('data')`) works. `complete` is true and there is no socket, which tells `on-finished` (used by
 * multer) that the request is done.
 */
export class PluginRouteRequest extends Readable implements HttpRouteRequest {
  readonly method: string;
  url: string;
  originalUrl: string;
  baseUrl = '';
  readonly path: string;
  headers: Record<string, string | undefined>;
  body: unknown;
  readonly rawBody: Uint8Array;
  params: Record<string, string>;
  query: Record<string, string>;
  file?: UploadedFile;
  files?: UploadedFile[];
  readonly ip: string | undefined;
  readonly runtime: AgentRuntime;
  readonly complete = true;
  readonly aborted = false;
  readonly httpVersion = '1.1';
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  #pushed = false;

  constructor(init: PluginRouteRequestInit) {
    super();
    this.method = init.method;
    this.url = init.url;
    this.originalUrl = init.url;
    this.path = init.path;
    this.headers = init.headers;
    this.body = init.body;
    this.rawBody = init.rawBody;
    this.params = init.params;
    this.query = init.query;
    if (init.file) this.file = init.file;
    if (init.files) this.files = init.files;
    this.ip = init.ip;
    this.runtime = init.runtime;
  }

  get(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }

  header(name: string): string | undefined {
    return this.get(name);
  }

  /** Whether the handler started reading the body stream (a parser may answer from its callback later). */
  get isBodyStreamInUse(): boolean {
    return (
      this.readableFlowing !== null ||
      this.readableDidRead ||
      this.listenerCount('data') > 0 ||
      this.listenerCount('readable') > 0
    );
  }

  override _read(): void {
    if (this.#pushed) return;
    this.#pushed = true;
    const bytes = this.rawBody;
    if (bytes.byteLength > 0)
      this.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    this.push(null);
  }
}
