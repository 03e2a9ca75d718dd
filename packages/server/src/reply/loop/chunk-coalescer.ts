/**
 * Joins the reply pieces that arrive in the same turn of the event loop into one chunk. A model that sends a
 * burst (a fast local server, a proxy that buffers) would otherwise cost one event per piece for every client
 * of the room; pieces that arrive over time, as tokens of a live model do, still go out one by one.
 */
export class ChunkCoalescer {
  #pending = '';
  #scheduled: NodeJS.Immediate | undefined;

  constructor(private readonly deliver: (chunk: string) => void) {}

  /** Adds a piece; it is delivered once the current turn of the event loop has ended. */
  push(piece: string): void {
    if (piece === '') return;
    this.#pending += piece;
    this.#scheduled ??= setImmediate(() => this.flush());
  }

  /** Delivers whatever is pending now. */
  flush(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const chunk = this.#pending;
    this.#pending = '';
    if (chunk !== '') this.deliver(chunk);
  }
}
