import type { Logger } from 'pino';
import type { Namespace } from 'socket.io';
import type { Adapter } from 'socket.io-adapter';

/** What socket.io's `io.adapter()` takes: one adapter per namespace. */
export type AdapterFactory = (namespace: Namespace) => Adapter;

/** A socket.io cluster adapter with its own connections. */
export interface ClusterAdapter {
  /** Where rooms meet. */
  readonly kind: 'postgres' | 'redis';
  /** Whether the adapter's connection is up now (for readiness). */
  connected(): boolean;
  /** Pass to `io.adapter()`. Closing the last namespace's adapter (`io.close()`) closes the connections. */
  readonly adapter: AdapterFactory;
  /**
   * Settles once the connections and what the adapter stores are set up. PostgreSQL: set up when first read
   * (the server reads it as it starts, after migrating), never rejects (failures are logged; the database itself
   * is checked by migrations). Redis: rejects with a DependencyError when the
   * first connection does not succeed in time.
   */
  readonly ready: Promise<void>;
}

/**
 * Wraps an adapter factory so that once every namespace's adapter has closed, `release` runs (socket.io's
 * adapters leave the connections they were given open).
 */
export function releasingOnClose(
  factory: AdapterFactory,
  release: () => Promise<void>,
): AdapterFactory {
  let open = 0;
  // A function, not an arrow: socket.io calls it with `new`.
  return function adapterFor(namespace: Namespace) {
    const adapter = factory(namespace);
    open += 1;
    const close = adapter.close.bind(adapter);
    adapter.close = async () => {
      await close();
      open -= 1;
      if (open === 0) await release();
    };
    return adapter;
  };
}

/** Logs an adapter or connection failure without its payload (it may carry conversation content). */
export function logClusterError(logger: Logger, error: unknown, what: string): void {
  logger.warn({ error: error instanceof Error ? error.message : String(error) }, what);
}
