import { type SseEvent, createSseParser } from './create-sse-parser';

/**
 * Reads a `text/event-stream` body as events. The body is decoded as UTF-8 across chunk boundaries. Stopping
 * the iteration early (break, return, a throw) cancels the body, so the server learns that the client left.
 *
 * @example
 * for await (const event of readSseEvents(response.body)) handle(event.event, event.data);
 */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<SseEvent, void, undefined> {
  const reader = body.getReader();
  // ignoreBOM keeps a leading BOM in the text: the parser drops it, and must not drop a second one.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const parser = createSseParser();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        yield* parser.push(decoder.decode());
        return;
      }
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
