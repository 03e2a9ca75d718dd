interface Entry<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** How a {@link BatchWriter} bounds its writers' wait and tells a database failure from a bad item. */
export interface BatchWriterLimits {
  /**
   * The longest one `write` waits, queued and written (ms; none by default). Past it the caller is rejected
   * with `deadlineError()`: an item still queued is dropped (never written); one in a batch in flight may still
   * be written, as with any query that outlived its deadline.
   */
  deadlineMs?: number;
  /** The error a writer past its deadline is rejected with. */
  deadlineError?: () => unknown;
  /**
   * Whether a batch's failure would fail every item alike (the database cannot be reached): its items are then
   * all rejected with it at once, instead of written one by one to find a bad one.
   */
  failsAll?: (error: unknown) => boolean;
}

/**
 * Group commit: items written in the same moment share one database round trip. Each caller's promise settles
 * when its own item is durable (or failed). While one batch is being written the next one gathers, so under
 * load batches grow by themselves and at rest a lone item is written at once.
 */
export class BatchWriter<T> {
  #queue: Entry<T>[] = [];
  #running = false;
  /** Batches written and waiting for `makeDurable`. */
  #settling = new Set<Promise<void>>();

  /**
   * @param writeBatch writes the items in order, all or nothing.
   * @param maxBatch the most items one round trip carries.
   * @param makeDurable runs after each batch is written; the batch's writers resolve only once it has. The next
   *   batch is written meanwhile, so a slow fsync overlaps with the next round trip instead of adding to it.
   *   Calls must complete in order (a later one covers everything an earlier one did).
   * @param limits the writers' deadline and what fails a whole batch (see {@link BatchWriterLimits}).
   */
  constructor(
    private readonly writeBatch: (items: T[]) => Promise<void>,
    private readonly maxBatch = 500,
    private readonly makeDurable: () => Promise<void> = () => Promise.resolve(),
    private readonly limits: BatchWriterLimits = {},
  ) {}

  /** Queues an item; resolves once it is written (or rejects at the deadline, when there is one). */
  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = this.#bounded({ item, resolve, reject });
      this.#queue.push(entry);
      if (!this.#running) {
        this.#running = true;
        void this.#drain();
      }
    });
  }

  /** `entry` settled once: by its write, or at the deadline (then dropped from the queue if still there). */
  #bounded(entry: Entry<T>): Entry<T> {
    const { deadlineMs, deadlineError } = this.limits;
    if (deadlineMs === undefined) return entry;
    const settle = (settleWith: () => void) => {
      clearTimeout(timer);
      settleWith();
    };
    const bounded: Entry<T> = {
      item: entry.item,
      resolve: () => settle(entry.resolve),
      reject: (error) => settle(() => entry.reject(error)),
    };
    const timer = setTimeout(() => {
      const queued = this.#queue.indexOf(bounded);
      if (queued >= 0) this.#queue.splice(queued, 1);
      entry.reject(deadlineError ? deadlineError() : new Error('write deadline passed'));
    }, deadlineMs);
    timer.unref();
    return bounded;
  }

  /** Resolves when everything queued so far has been written. */
  async idle(): Promise<void> {
    while (this.#running || this.#settling.size > 0) {
      await Promise.all([new Promise((resolve) => setImmediate(resolve)), ...this.#settling]);
    }
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      // setImmediate, not a microtask: it lets pending I/O run first, so requests that arrived meanwhile join
      // this batch. A microtask would start the next write before a single new request was read.
      await new Promise((resolve) => setImmediate(resolve));
      const batch = this.#queue.splice(0, this.maxBatch);
      if (batch.length === 0) continue; // every writer gave up at its deadline meanwhile
      const written = await this.#write(batch);
      if (written.length === 0) continue;
      const settled: Promise<void> = this.makeDurable().then(
        () => written.forEach((entry) => entry.resolve()),
        (error: unknown) => written.forEach((entry) => entry.reject(error)),
      );
      this.#settling.add(settled);
      void settled.finally(() => this.#settling.delete(settled));
    }
    this.#running = false;
  }

  /** Writes a batch; returns the entries that were written (the others have been rejected). */
  async #write(batch: Entry<T>[]): Promise<Entry<T>[]> {
    try {
      await this.writeBatch(batch.map((entry) => entry.item));
      return batch;
    } catch (error) {
      if (batch.length === 1 || this.limits.failsAll?.(error)) {
        for (const entry of batch) entry.reject(error);
        return [];
      }
      // One bad item must not fail its neighbours: write them one by one to find it.
      const written: Entry<T>[] = [];
      for (const entry of batch) {
        await this.writeBatch([entry.item]).then(
          () => written.push(entry),
          (failure: unknown) => entry.reject(failure),
        );
      }
      return written;
    }
  }
}
