/**
 * Group commit: items written in the same moment share one database round trip. Each caller's promise settles
 * when its own item is durable (or failed). While one batch is being written the next one gathers, so under
 * load batches grow by themselves and at rest a lone item is written at once.
 */
export class BatchWriter<T> {
  #queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #running = false;

  /**
   * @param writeBatch writes the items in order, all or nothing.
   * @param maxBatch the most items one round trip carries.
   */
  constructor(
    private readonly writeBatch: (items: T[]) => Promise<void>,
    private readonly maxBatch = 500,
  ) {}

  /** Queues an item; resolves once it is written. */
  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#running) {
        this.#running = true;
        void this.#drain();
      }
    });
  }

  /** Resolves when everything queued so far has been written. */
  async idle(): Promise<void> {
    while (this.#running) await new Promise((resolve) => setImmediate(resolve));
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      // setImmediate, not a microtask: it lets pending I/O run first, so requests that arrived meanwhile join
      // this batch. A microtask would start the next write before a single new request was read.
      await new Promise((resolve) => setImmediate(resolve));
      const batch = this.#queue.splice(0, this.maxBatch);
      try {
        await this.writeBatch(batch.map((entry) => entry.item));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        if (batch.length === 1) {
          batch[0]!.reject(error);
          continue;
        }
        // One bad item must not fail its neighbours: write them one by one to find it.
        for (const entry of batch) {
          await this.writeBatch([entry.item]).then(entry.resolve, entry.reject);
        }
      }
    }
    this.#running = false;
  }
}
