/** One request a stub fetch saw. */
export interface SeenRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal | undefined;
}

/** A fetch that records requests and answers with `respond`, in the order called. */
export function stubFetch(
  ...responders: ((request: SeenRequest) => Response | Promise<Response>)[]
) {
  const requests: SeenRequest[] = [];
  const fetch: typeof globalThis.fetch = (input, init = {}) => {
    const request: SeenRequest = {
      url: input as string,
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string>,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      signal: init.signal ?? undefined,
    };
    requests.push(request);
    const responder = responders[requests.length - 1] ?? responders.at(-1);
    if (!responder) throw new Error('no responder');
    return Promise.resolve(responder(request));
  };
  return { fetch, requests };
}

/** A JSON response. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/** A fetch answer that never comes, until the request's signal aborts. */
export function hang(request: SeenRequest): Promise<Response> {
  return new Promise((_, reject) => {
    request.signal?.addEventListener('abort', () => reject(request.signal?.reason as Error));
  });
}

/**
 * An event-stream response made of `blocks`; when `fail` is set the body errors after them, as a dropped
 * connection does. `cancelled` resolves when the client cancels the body.
 */
export function sse(
  blocks: string[],
  options: { fail?: boolean } = {},
): { response: Response; cancelled: Promise<void> } {
  let markCancelled!: () => void;
  const cancelled = new Promise<void>((resolve) => (markCancelled = resolve));
  const encoder = new TextEncoder();
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const block = blocks[index++];
      if (block !== undefined) controller.enqueue(encoder.encode(block));
      else if (options.fail) controller.error(new TypeError('terminated'));
      else controller.close();
    },
    cancel: () => markCancelled(),
  });
  const response = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  return { response, cancelled };
}

/** One `event:`/`id:`/`data:` block as the Parley server writes it. */
export function block(event: string, id: number, data: unknown): string {
  return `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
}
