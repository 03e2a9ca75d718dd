import type { Server } from 'node:http';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';

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
  /** Open connections in all; more are closed at once (default 2000; keep it below `ulimit -n`). */
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
export const CONNECTION_LIMIT_DEFAULTS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxConnections: 2_000,
  maxConnectionsPerAddress: 100,
  limitLoopback: false,
} as const satisfies Required<ConnectionLimitOptions>;

/** What {@link applyConnectionLimits} reports while the server runs. */
export interface ConnectionLimitState {
  /** Open connections per address (counted ones only). */
  readonly perAddress: ReadonlyMap<string, number>;
  /** Connections closed at once because their address had too many. */
  readonly refusedPerAddress: number;
}

/** Whether an address is a loopback one (127.0.0.0/8, ::1, or IPv4-mapped loopback). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1';
}

/**
 * Applies connection limits to a node HTTP server before it listens: Node's own header, request and keep-alive
 * timeouts (checked every `checkIntervalMs`), `maxConnections`, and a per-address bound that closes a
 * connection at once when its address already holds `maxConnectionsPerAddress`.
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
  server.maxConnections = limits.maxConnections;
  // Read by Node when the server starts listening; without it the timeouts above are checked every 30 s.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    limits.checkIntervalMs;

  const perAddress = new Map<string, number>();
  const state = { perAddress, refusedPerAddress: 0 };
  const cap = limits.maxConnectionsPerAddress;
  if (cap > 0) {
    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress;
      if (!address || (!limits.limitLoopback && isLoopbackAddress(address))) return;
      const open = perAddress.get(address) ?? 0;
      if (open >= cap) {
        state.refusedPerAddress += 1;
        socket.destroy();
        return;
      }
      perAddress.set(address, open + 1);
      socket.once('close', () => {
        const left = (perAddress.get(address) ?? 1) - 1;
        if (left <= 0) perAddress.delete(address);
        else perAddress.set(address, left);
      });
    });
  }
  return state;
}
