import { API_KEY_HEADER, type ClientToServerEvents, type ServerToClientEvents } from '@parley/core';
import { safeEqual } from '@parley/plugin-sdk';
import { Server as SocketIOServer } from 'socket.io';
import type { Logger } from 'pino';

/** The server's typed socket.io instance. */
export type ParleySocketServer = SocketIOServer<ClientToServerEvents, ServerToClientEvents>;

/** Options of {@link createSocketServer}. */
export interface SocketServerOptions {
  logger: Logger;
  /** When set, a connection must carry it as `auth.apiKey` or the `x-api-key` header. */
  authToken?: string;
  /** Largest accepted socket payload in bytes. */
  maxPayloadBytes: number;
}

/**
 * socket.io on the HTTP port: transports polling and websocket, any origin with GET and POST, optional API-key
 * auth, `connection_established` on connect.
 */
export function createSocketServer(options: SocketServerOptions): ParleySocketServer {
  const io: ParleySocketServer = new SocketIOServer({
    path: '/socket.io',
    transports: ['polling', 'websocket'],
    cors: { origin: '*', methods: ['GET', 'POST'] },
    maxHttpBufferSize: options.maxPayloadBytes,
    serveClient: false,
  });

  const { authToken } = options;
  if (authToken) {
    io.use((socket, next) => {
      const auth = socket.handshake.auth as { apiKey?: unknown };
      const header = socket.handshake.headers[API_KEY_HEADER];
      const offered = typeof auth.apiKey === 'string' ? auth.apiKey : header;
      if (typeof offered === 'string' && safeEqual(offered, authToken)) return next();
      next(new Error('Unauthorized: missing or invalid API key (auth.apiKey or x-api-key)'));
    });
  }

  io.on('connection', (socket) => {
    options.logger.debug({ socketId: socket.id }, 'socket connected');
    socket.emit('connection_established', { socketId: socket.id });
  });
  return io;
}
