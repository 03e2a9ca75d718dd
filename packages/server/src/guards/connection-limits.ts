import { DEFAULTS } from '../defaults';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { addressGroup, isLoopbackAddress } from './client-address';

export { isLoopbackAddress } from './client-address';

/**
 * Bounds on the connections of the HTTP server (and so of the socket transport, which shares it). Every
 * field has a safe default; `ServerOptions.connections` takes them.
 */
export interface ConnectionLimitOptions {
  /**
   * Time a connection has to send a complete request head, from its first byte or from the end of the
   * previous request; a connection that sends nothing or half a header is answered 408 and closed
   * (default 10000 ms).
   */
  headersTimeoutMs?: number;
  /**
   * Time a connection has to send a whole request, head and body; a body trickling in (1 byte a second) is
   * cut at this point (default 60000 ms). Not a bound on the answer: `stream` replies and the socket may
   * last longer.
   */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open after an answer (default 5000 ms). */
  keepAliveTimeoutMs?: number;
  /** How often the timeouts above are checked: their precision (default 1000 ms; Node's own is 30 s). */
  checkIntervalMs?: number;
  /**
   * Open connections in all (default 2000; lowered below the file-descriptor limit). At the cap a new
   * connection takes the place of the oldest idle one; when none is idle, it is closed at once.
   */
  maxConnections?: number;
  /** Open connections from one address; more from it are closed at once (default 100; 0: no bound). */
  maxConnectionsPerAddress?: number;
  /**
   * Whether loopback peers count against `maxConnectionsPerAddress` (default false: a reverse proxy on the
   * same machine brings every client from one loopback address, and local tools are trusted with the
   * machine anyway). They always count against `maxConnections`.
   */
  limitLoopback?: boolean;
}

/** The defaults of {@link ConnectionLimitOptions}. */
export const CONNECTION_LIMIT_DEFAULTS =
  DEFAULTS.connections satisfies Required<ConnectionLimitOptions>;

/** What {@link applyConnectionLimits} reports while the server runs. */
export interface ConnectionLimitState {
  /** Open connections per address group (an IPv4 address or an IPv6 /64; counted ones only). */
  readonly perAddress: ReadonlyMap<string, number>;
  /** Connections closed at once because their address had too many. */
  readonly refusedPerAddress: number;
  /** Idle connections closed to make room for a new one when every slot was taken. */
  readonly evictedIdle: number;
  /** New connections closed at once because every slot was taken by a busy connection. */
  readonly refusedFull: number;
  /** Open connections. */
  readonly open: number;
  /** The cap in force: `maxConnections`, lowered below the file-descriptor limit when that is lower. */
  readonly maxConnections: number;
}

/** File descriptors kept free for the database, logs, files and listening sockets. */
const RESERVED_DESCRIPTORS = 128;

/** The soft limit on open files of this process (Linux), if it can be read. */
function openFileLimit(): number | undefined {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
    return soft === undefined ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/** One open connection: whether a request is in progress or it became a websocket. */
interface Tracked {
  readonly socket: Socket;
  readonly group: string | undefined;
  busy: number;
  upgraded: boolean;
  released: boolean;
}

/**
 * Applies connection limits to a node HTTP server before it listens: Node's own header, request and keep-alive
 * timeouts (checked every `checkIntervalMs`), a per-address bound that closes a connection at once when its
 * address (an IPv6 /64) already holds `maxConnectionsPerAddress`, and the total cap. At the cap, a new
 * connection takes the slot of the oldest idle one (connected, no request in progress, not a websocket), so a
 * client that keeps reopening what the server closes cannot keep the slots from a fresh client: it only
 * pushes out its own oldest sockets. Only when every slot is busy is the new connection closed. The cap is
 * kept below the process's file-descriptor limit.
 *
 * @example
 * const server = createServer(listener);
 * applyConnectionLimits(server, { maxConnectionsPerAddress: 50 });
 * server.listen(3000);
 */
export function applyConnectionLimits(
  server: Server,
  options: ConnectionLimitOptions = {},
): ConnectionLimitState {
  const limits: Required<ConnectionLimitOptions> = { ...CONNECTION_LIMIT_DEFAULTS };
  for (const key of Object.keys(limits) as (keyof ConnectionLimitOptions)[]) {
    // `undefined` keeps the default, so callers can pass optional settings straight through.
    if (options[key] !== undefined) Object.assign(limits, { [key]: options[key] });
  }
  if (limits.requestTimeoutMs > 0 && limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new RangeError('headersTimeoutMs must not exceed requestTimeoutMs');
  }
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // Read by Node when the server starts listening; without it the timeouts above are checked every 30 s.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    limits.checkIntervalMs;

  const descriptors = openFileLimit();
  const maxConnections = Math.max(
    1,
    descriptors === undefined
      ? limits.maxConnections
      : Math.min(limits.maxConnections, descriptors - RESERVED_DESCRIPTORS),
  );
  const perAddress = new Map<string, number>();
  // Insertion order is age: the first idle entry is the oldest idle connection.
  const open = new Map<Socket, Tracked>();
  const state = {
    perAddress,
    refusedPerAddress: 0,
    evictedIdle: 0,
    refusedFull: 0,
    get open() {
      return open.size;
    },
    maxConnections,
  };
  const cap = limits.maxConnectionsPerAddress;

  const release = (tracked: Tracked) => {
    if (tracked.released) return;
    tracked.released = true;
    open.delete(tracked.socket);
    if (tracked.group === undefined) return;
    const left = (perAddress.get(tracked.group) ?? 1) - 1;
    if (left <= 0) perAddress.delete(tracked.group);
    else perAddress.set(tracked.group, left);
  };
  const oldestIdle = (): Tracked | undefined => {
    for (const tracked of open.values()) {
      if (tracked.busy === 0 && !tracked.upgraded) return tracked;
    }
    return undefined;
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    let group: string | undefined;
    if (cap > 0 && address && (limits.limitLoopback || !isLoopbackAddress(address))) {
      group = addressGroup(address);
      const count = perAddress.get(group) ?? 0;
      if (count >= cap) {
        state.refusedPerAddress += 1;
        socket.destroy();
        return;
      }
      perAddress.set(group, count + 1);
    }
    const tracked: Tracked = { socket, group, busy: 0, upgraded: false, released: false };
    if (open.size >= maxConnections) {
      const victim = oldestIdle();
      if (!victim) {
        state.refusedFull += 1;
        release(tracked);
        socket.destroy();
        return;
      }
      state.evictedIdle += 1;
      release(victim);
      victim.socket.destroy();
    }
    open.set(socket, tracked);
    socket.once('close', () => release(tracked));
  });

  const trackRequests = () => {
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const tracked = open.get(request.socket);
      if (!tracked) return;
      tracked.busy += 1;
      response.once('close', () => {
        tracked.busy -= 1;
      });
    });
  };
  // socket.io replaces the `request` listeners present when it attaches (and calls them for its own paths
  // no more); one added once listening sees its long-polls too.
  if (server.listening) trackRequests();
  else server.once('listening', trackRequests);
  server.on('upgrade', (request: IncomingMessage) => {
    const tracked = open.get(request.socket);
    if (tracked) tracked.upgraded = true;
  });
  return state;
}
