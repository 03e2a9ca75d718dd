import type { ClientToServerEvents, ServerToClientEvents } from '@parley/core';
import type { IncomingMessage } from 'node:http';
import { Server as SocketIOServer } from 'socket.io';
import type { Logger } from 'pino';
import { hasServerToken, offeredApiKey } from '../guards/api-key';
import type { Identity } from '../identity/identity';
import { socketCredential } from '../identity/identity-middleware';
import type { IdentityResolver } from '../identity/resolve-identity';
import type { TrustProxy } from '../guards/client-address';
import { type HandshakeLimit, createHandshakeLimiter } from '../guards/handshake-limiter';
import { HOST_NOT_ALLOWED } from '../guards/host-allow-list';
import { type ClusterAdapter, type ClusterOptions, createClusterAdapter } from './create-adapter';

const DEFAULT_HANDSHAKE_LIMIT: HandshakeLimit = { burst: 60, perSecond: 20 };

/** The server's typed socket.io instance. */
export type ParleySocketServer = SocketIOServer<ClientToServerEvents, ServerToClientEvents>;

/** Options of {@link createSocketServer}. */
export interface SocketServerOptions {
  logger: Logger;
  /** When set, a connection must carry it as `auth.apiKey` or the `x-api-key` header. */
  authToken?: string;
  /** Who connects (identity/): when it accepts people, the handshake resolves `socket.data.identity`. */
  identity?: IdentityResolver;
  /** Largest accepted socket payload in bytes. */
  maxPayloadBytes: number;
  /** New connections per client address (default: a burst of 60, then 20 per second). */
  handshakeLimit?: HandshakeLimit;
  /** Whether a handshake's Host may connect (the REST Host rule; default: any). */
  isAllowedHost?: (request: IncomingMessage) => boolean;
  /** Whether a handshake's Origin may connect (see `createSocketOriginPolicy`; default: any). */
  isAllowedOrigin?: (request: IncomingMessage) => boolean;
  /** Which proxies' `X-Forwarded-For` names the client, for the handshake limit (default: none). */
  trustProxy?: TrustProxy;
  /**
   * Processes that share rooms: every broadcast reaches the room's members on every process that has the
   * same `cluster`. Unset: rooms live in this process only.
   */
  cluster?: ClusterOptions;
}

const clusters = new WeakMap<ParleySocketServer, ClusterAdapter>();

/** Where the socket server's rooms meet: this process only, or the cluster adapter's PostgreSQL or Redis. */
export function socketServerRooms(io: ParleySocketServer): {
  kind: 'in-process' | 'postgres' | 'redis';
  connected: boolean;
} {
  const cluster = clusters.get(io);
  return cluster
    ? { kind: cluster.kind, connected: cluster.connected() }
    : { kind: 'in-process', connected: true };
}

/**
 * Settles once the socket server's cluster adapter (if any) is connected, so that a process starts serving
 * only when broadcasts from the others reach it. Never rejects: failures are logged and retried.
 */
export function socketServerReady(io: ParleySocketServer): Promise<void> {
  // Read only now: the PostgreSQL adapter touches its database once the server starts, after migrating.
  return clusters.get(io)?.ready ?? Promise.resolve();
}

/**
 * engine.io's hook for each new connection: a Host the REST interface would refuse is refused here too (a page
 * that rebinds its DNS name to this server cannot open a socket), and each address has a rate.
 */
function allowHandshake(options: SocketServerOptions) {
  const limit = createHandshakeLimiter(
    options.handshakeLimit ?? DEFAULT_HANDSHAKE_LIMIT,
    Date.now,
    options.trustProxy,
  );
  const isAllowedHost = options.isAllowedHost ?? (() => true);
  const isAllowedOrigin = options.isAllowedOrigin ?? (() => true);
  return (
    request: IncomingMessage,
    callback: (error: string | null | undefined, allow: boolean) => void,
  ) => {
    if (!isAllowedHost(request)) return callback(HOST_NOT_ALLOWED, false);
    if (!isAllowedOrigin(request)) {
      return callback(
        'This Origin may not open a socket without a token; see ALLOWED_ORIGINS',
        false,
      );
    }
    limit(request, callback);
  };
}

/**
 * socket.io on the HTTP port: transports polling and websocket, any origin with GET and POST, optional API-key
 * auth, `connection_established` on connect, and rooms across processes with `cluster`.
 */
export function createSocketServer(options: SocketServerOptions): ParleySocketServer {
  const io: ParleySocketServer = new SocketIOServer({
    path: '/socket.io',
    transports: ['polling', 'websocket'],
    cors: { origin: '*', methods: ['GET', 'POST'] },
    maxHttpBufferSize: options.maxPayloadBytes,
    serveClient: false,
    allowRequest: allowHandshake(options),
  });

  if (options.cluster) {
    const cluster = createClusterAdapter(options.cluster, options.logger);
    io.adapter(cluster.adapter);
    clusters.set(io, cluster);
  }

  const { authToken, identity } = options;
  if (identity?.configured) {
    // People sign in: the handshake's credential resolves to `socket.data.identity` (the operator token: admin).
    io.use((socket, next) => {
      identity.resolve(socketCredential(socket.handshake)).then(
        (who) => {
          (socket.data as { identity?: Identity }).identity = who;
          next();
        },
        (error: unknown) =>
          next(
            new Error(
              `Unauthorized: ${error instanceof Error ? error.message : 'invalid credential'}`,
            ),
          ),
      );
    });
  } else if (authToken) {
    io.use((socket, next) => {
      const offered = offeredApiKey({
        auth: (socket.handshake.auth as { apiKey?: unknown }).apiKey,
        header: (name) => socket.handshake.headers[name],
      });
      if (offered !== undefined && hasServerToken(offered, authToken)) return next();
      next(new Error('Unauthorized: missing or invalid API key (auth.apiKey or x-api-key)'));
    });
  }

  io.on('connection', (socket) => {
    options.logger.debug({ socketId: socket.id }, 'socket connected');
    socket.emit('connection_established', { socketId: socket.id });
  });
  return io;
}
