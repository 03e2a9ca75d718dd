/**
 * Turns a model's streamed output into what a client should see, one chunk at a time. Implementations hold back
 * only a small, bounded tail (a tag that may be cut in two, half a surrogate pair), so that the concatenation of
 * every `push()` result and the final `flush()` is the same however the input was split into chunks.
 *
 * @example
 * const extractor = new ResponseStreamExtractor();
 * for await (const chunk of modelStream) {
 *   const visible = extractor.push(chunk);
 *   if (visible) send(visible);
 * }
 * const rest = extractor.flush();
 * if (rest) send(rest);
 */
export interface StreamExtractor {
  /** Whether extraction is complete: later input cannot add to the output. */
  readonly done: boolean;
  /** Takes the next chunk of input; returns what to stream to the client now (`''` when nothing yet). */
  push(chunk: string): string;
  /** Ends the input; returns whatever was still held back and belongs to the output. */
  flush(): string;
  /** Returns to the initial state, so the instance can serve another stream. */
  reset(): void;
}
