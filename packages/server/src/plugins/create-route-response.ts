import type { RouteResponse } from '@parley/plugin-sdk';

/** Statuses whose responses never carry a body. */
const BODYLESS_STATUSES = new Set([204, 205, 304]);

/** The server side of a {@link RouteResponse}: what the handler wrote, turned into a fetch `Response`. */
export interface RouteResponseController {
  /** Handed to the route handler. */
  readonly response: RouteResponse;
  /** Resolves when the handler sends (`json` or `send`). */
  readonly sent: Promise<void>;
  /** Whether the handler has sent. */
  readonly isSent: boolean;
  /**
   * The HTTP response. When the handler never sent: 204 if it set no status, else its status with no body.
   */
  toResponse(): Response;
  /** Refuses every later write; they are reported to `onIgnoredWrite` instead. */
  close(): void;
}

/**
 * Creates the Express-like response object a plugin handler writes to. Only the first send counts, and nothing
 * written after `close()` (a timeout, or the response already gone) reaches the client.
 *
 * @param onIgnoredWrite - told about each write that was dropped, so it can be logged.
 */
export function createRouteResponse(
  onIgnoredWrite: (what: string) => void,
): RouteResponseController {
  let statusCode: number | undefined;
  const headers = new Headers();
  let body: string | Uint8Array | undefined;
  let sent = false;
  let closed = false;
  let markSent!: () => void;
  const sentPromise = new Promise<void>((resolve) => (markSent = resolve));

  const writable = (what: string) => {
    if (closed || sent) onIgnoredWrite(what);
    return !closed && !sent;
  };
  const finish = (content: string | Uint8Array, defaultType: string) => {
    if (!headers.has('content-type')) headers.set('content-type', defaultType);
    body = content;
    sent = true;
    markSent();
  };

  const response: RouteResponse = {
    status(code) {
      // Response cannot represent 1xx or out-of-range codes; failing here points at the handler's bug.
      if (!Number.isInteger(code) || code < 200 || code > 599) {
        throw new RangeError(`Invalid HTTP status ${code}`);
      }
      if (writable('status')) statusCode = code;
      return response;
    },
    setHeader(name, value) {
      if (writable('setHeader')) headers.set(name, value);
      return response;
    },
    json(value) {
      if (!writable('json')) return;
      finish(JSON.stringify(value) ?? 'null', 'application/json; charset=UTF-8');
    },
    send(content) {
      if (!writable('send')) return;
      // Plain text by default, not HTML: a handler echoing input must not become an injection vector.
      const type =
        typeof content === 'string' ? 'text/plain; charset=UTF-8' : 'application/octet-stream';
      finish(content, type);
    },
  };

  return {
    response,
    sent: sentPromise,
    get isSent() {
      return sent;
    },
    toResponse() {
      const status = statusCode ?? (sent ? 200 : 204);
      const content = BODYLESS_STATUSES.has(status) ? null : (body ?? null);
      return new Response(content, { status, headers });
    },
    close() {
      closed = true;
    },
  };
}
