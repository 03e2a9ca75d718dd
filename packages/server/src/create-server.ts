import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Character } from '@parley/plugin-sdk';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { AgentRegistry } from './agents/agent-registry';
import type { AppEnv } from './http/app-env';
import { createHttpApp } from './http/create-app';
import { messagingRoutes } from './http/routes/messaging-routes';
import { serverRoutes } from './http/routes/server-routes';
import { createLogger } from './logger';
import { MessagingService } from './messaging/messaging-service';
import { createElizaModel } from './models';
import type { ModelProvider } from './models/model-provider';
import { createSocketServer, type ParleySocketServer } from './socket/create-socket-server';
import { createSocketBroadcaster } from './socket/socket-broadcaster';
import { attachSocketProtocol } from './socket/socket-protocol';
import { createDatabase, type DatabaseLocation } from './storage/create-database';
import { MessageStore } from './storage/message-store';

/** Options of {@link createServer}. Every field has a default. */
export interface ServerOptions {
  /** Port to listen on (default 3000; 0 picks a free one). */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** The agents; the first is the default agent. With none, the built-in Eliza runs. */
  characters?: Character[];
  /** Environment used as the settings fallback (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Logger (default: pino on stdout at `info`). */
  logger?: Logger;
  /** When set, `/api`, the socket and non-public plugin routes require `x-api-key` equal to it. */
  authToken?: string;
  /** Maximum JSON body size in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Largest socket payload in bytes (default 1 MiB). */
  socketMaxPayloadBytes?: number;
  /** How long `stop()` lets in-flight requests finish before closing them (default 10000 ms). */
  shutdownTimeoutMs?: number;
  /** Where data lives (default: embedded PGlite in `./.parley`). */
  database?: DatabaseLocation;
  /** The model agents answer with (default: the offline ELIZA responder). */
  model?: ModelProvider;
  /** How long a `sync` channel message waits for the reply (default 60000 ms, then 504). */
  syncTimeoutMs?: number;
  /** Keep-alive comment interval on `stream` replies (default 15000 ms). */
  sseKeepAliveMs?: number;
  /** Largest socket `message` payload in bytes of JSON (default 64 KiB). */
  socketMaxMessageBytes?: number;
  /** Socket events a connection may send in a burst (default 40) and per second after it (default 20). */
  socketRateLimit?: { burst: number; perSecond: number };
}

/** A running (or ready-to-run) Parley server. */
export interface ParleyServer {
  /** The hono app; more routes may be added before `start()`. */
  readonly app: Hono<AppEnv>;
  /** The socket.io server. */
  readonly io: ParleySocketServer;
  /** The agents. */
  readonly agents: AgentRegistry;
  /** Messages in, replies out. */
  readonly messaging: MessagingService;
  readonly logger: Logger;
  /** The base address, e.g. `http://127.0.0.1:3000` (known after `start()`). */
  readonly url: string;
  /** Binds the port and serves HTTP and the socket. */
  start(): Promise<{ url: string; port: number }>;
  /**
   * Stops gracefully: stops accepting connections, closes sockets, lets in-flight requests finish up to the
   * shutdown deadline, then closes whatever is left. Safe to call more than once.
   */
  stop(): Promise<void>;
}

const MEBIBYTE = 1024 * 1024;

/**
 * Creates a Parley server: hono on a node HTTP server with socket.io on the same port.
 *
 * @example
 * const server = createServer({ port: 3000 });
 * const { url } = await server.start();
 * process.once('SIGTERM', () => void server.stop());
 */
export function createServer(options: ServerOptions = {}): ParleyServer {
  const logger = options.logger ?? createLogger();
  const env = options.env ?? process.env;
  const host = options.host ?? '127.0.0.1';
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;
  let port = options.port ?? 3000;
  let serverUrl = `http://localhost:${port}`;

  const agents = new AgentRegistry(options.characters ?? [], (character) => ({
    env,
    serverUrl: () => serverUrl,
    logger: logger.child({ agent: character.name }),
  }));

  const database = createDatabase(options.database ?? { kind: 'pglite', dataDir: '.parley' });
  const store = new MessageStore(database.db);
  const messaging = new MessagingService({
    store,
    agents,
    model: options.model ?? createElizaModel(),
    logger,
  });

  const app = createHttpApp({
    logger,
    authToken: options.authToken,
    bodyLimit: options.bodyLimit ?? MEBIBYTE,
  });
  app.route('/', serverRoutes(agents));
  app.route(
    '/',
    messagingRoutes(messaging, {
      syncTimeoutMs: options.syncTimeoutMs ?? 60_000,
      sseKeepAliveMs: options.sseKeepAliveMs ?? 15_000,
    }),
  );

  const io = createSocketServer({
    logger,
    authToken: options.authToken,
    maxPayloadBytes: options.socketMaxPayloadBytes ?? MEBIBYTE,
  });
  messaging.broadcaster = createSocketBroadcaster(io);
  attachSocketProtocol(
    io,
    messaging,
    {
      maxMessageBytes: options.socketMaxMessageBytes ?? 64 * 1024,
      rateBurst: options.socketRateLimit?.burst ?? 40,
      ratePerSecond: options.socketRateLimit?.perSecond ?? 20,
    },
    logger,
  );

  let httpServer: HttpServer | undefined;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  let stopping: Promise<void> | undefined;

  const listener = getRequestListener(app.fetch);
  function track(request: { url?: string }, response: NodeJS.EventEmitter) {
    if (request.url?.startsWith('/socket.io/')) return;
    inFlight += 1;
    response.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
    });
  }

  async function start() {
    if (httpServer) throw new Error('server already started');
    await database.migrate(logger);
    const server = createHttpServer((request, response) => {
      track(request, response);
      void listener(request, response);
    });
    httpServer = server;
    io.attach(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    port = (server.address() as AddressInfo).port;
    serverUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    logger.info({ url: serverUrl, agents: agents.summaries() }, 'server listening');
    return { url: serverUrl, port };
  }

  async function shutdown() {
    const server = httpServer;
    if (!server) return;
    logger.info({ inFlight }, 'stopping');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // io.close() without a callback: with one it would wait for every HTTP connection, deadline or not.
    await io.close();
    if (inFlight > 0) {
      const deadline = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), shutdownTimeoutMs);
        timer.unref();
        drained = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      if (!(await deadline))
        logger.warn({ inFlight }, 'shutdown deadline passed; closing requests');
    }
    server.closeAllConnections();
    await closed;
    await store.flushed();
    await database.close();
    logger.info('stopped');
    logger.flush();
  }

  return {
    app,
    io,
    agents,
    messaging,
    logger,
    get url() {
      return serverUrl;
    },
    start,
    stop: () => (stopping ??= shutdown()),
  };
}
