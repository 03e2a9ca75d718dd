import type { MetricsSources } from './create-metrics';

/** The part of a socket.io server the socket gauges read. */
export interface SocketServerLike {
  engine: { clientsCount: number };
  of(namespace: '/'): {
    adapter: { rooms: Map<string, Set<string>>; sids: Map<string, Set<string>> };
  };
}

/**
 * Gauge sources for a socket.io server: connected sockets, and rooms other than the one each socket has of its
 * own (socket.io puts every socket in a room named after its id).
 */
export function socketSources(io: SocketServerLike): MetricsSources {
  return {
    sockets: () => io.engine.clientsCount,
    rooms: () => {
      const { rooms, sids } = io.of('/').adapter;
      let count = 0;
      for (const room of rooms.keys()) if (!sids.has(room)) count += 1;
      return count;
    },
  };
}
