import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { AgentRuntime, Character, Plugin } from '@parley/plugin-sdk';
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
import { loadPlugins, pluginRoutes } from './plugins';
import { ScheduledMessageDispatcher, ScheduledMessageStore } from './scheduling';
import { createSocketServer, type ParleySocketServer } from './socket/create-socket-server';
import { createSocketBroadcaster } from './socket/socket-broadcaster';
import { attachSocketProtocol } from './socket/socket-protocol';
import { createDatabase, type DatabaseLocation } from './storage/create-database';
import { MessageStore } from './storage/message-store';
import { createDatabaseTeeAgentStore, createTeeService, parseTeeConfig, teeRoutes } from './tee';

/** Options of {@link createServer}. Every field has a default. */
export interface ServerOptions {
  /** Port to listen on (default 3000; 0 picks a free one). */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** The agents; the first is the default agent. With none, the built-in Eliza runs. */
  characters?: Character[];
  /** Plugins, the same for every agent or chosen per agent. */
  plugins?: Plugin[] | ((agent: AgentRuntime) => Plugin[]);
  /** Environment used as the settings fallback (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Logger (default: pino on stdout at `info`). */
  logger?: Logger;
  /** When set, built-in endpoints, the socket and non-public plugin routes require `x-api-key` equal to it. */
  authToken?: string;
  /** Where data lives (default: embedded PGlite in `./.parley`). */
  database?: DatabaseLocation;
  /** The model agents answer with (default: the offline ELIZA responder). */
  model?: ModelProvider;
  /** Maximum JSON body size in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Maximum multipart upload size in bytes on plugin routes (default 10 MiB). */
  uploadLimit?: number;
  /** Plugin route handler timeout when a route sets none (default 30000 ms, then 504). */
  routeTimeoutMs?: number;
  /** How long a `sync` channel message waits for the reply (default 60000 ms, then 504). */
  syncTimeoutMs?: number;
  /** Keep-alive comment interval on `stream` replies (default 15000 ms). */
  sseKeepAliveMs?: number;
  /** Largest socket transport frame in bytes; larger frames close the connection (default 1 MiB). */
  socketMaxPayloadBytes?: number;
  /** Largest socket `message` payload in bytes of JSON, answered with an error (default 64 KiB). */
  socketMaxMessageBytes?: number;
  /** Socket events a connection may send in a burst (default 40) and per second after it (default 20). */
  socketRateLimit?: { burst: number; perSecond: number };
  /** How often scheduled messages are looked for (default 250 ms). */
  schedulerPollMs?: number;
  /** How long `stop()` lets in-flight requests finish before closing them (default 10000 ms). */
  shutdownTimeoutMs?: number;
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
  /** Scheduled messages. */
  readonly scheduler: ScheduledMessageDispatcher;
  readonly logger: Logger;
  /** The base address, e.g. `http://127.0.0.1:3000` (known after `start()`). */
  readonly url: string;
  /** Migrates the database, loads plugins, binds the port and serves HTTP and the socket. */
  start(): Promise<{ url: string; port: number }>;
  /**
   * Stops gracefully: stops accepting connections, closes sockets, lets in-flight requests finish up to the
   * shutdown deadline, then closes whatever is left and the database. Safe to call more than once.
   */
  stop(): Promise<void>;
}

const MEBIBYTE = 1024 * 1024;

/**
 * Creates a Parley server: hono on a node HTTP server with socket.io on the same port, agents, storage,
 * messaging, scheduled messages, plugin routes and TEE attestation.
 *
 * @example
 * const server = createServer({ port: 3000, plugins: [myPlugin] });
 * const { url } = await server.start();
 * process.once('SIGTERM', () => void server.stop());
 */
export function createServer(options: ServerOptions = {}): ParleyServer {
  const logger = options.logger ?? createLogger();
  const env = options.env ?? process.env;
  const host = options.host ?? '127.0.0.1';
  const bodyLimit = options.bodyLimit ?? MEBIBYTE;
  let port = options.port ?? 3000;
  let serverUrl = `http://localhost:${port}`;

  const agents = new AgentRegistry(options.characters ?? [], (character) => ({
    env,
    serverUrl: () => serverUrl,
    logger: logger.child({ agent: character.name }),
  }));
  const database = createDatabase(options.database ?? { kind: 'pglite', dataDir: '.parley' });
  const store = new MessageStore(database.db, {
    sync: () => database.sync(),
    // One process owns an embedded database, so its recent messages can be served from memory.
    recentCache: database.kind === 'pglite' ? 20 : 0,
  });
  const messaging = new MessagingService({
    store,
    agents,
    model: options.model ?? createElizaModel(),
    logger,
  });
  const scheduler = new ScheduledMessageDispatcher({
    store: new ScheduledMessageStore(database.db, () => database.sync()),
    messaging,
    agents,
    logger,
    pollIntervalMs: options.schedulerPollMs,
  });
  for (const agent of agents.list()) {
    agent.attach({
      sendMessage: async (author, post) => ({
        id: (await messaging.postAgentMessage(author, post)).id,
      }),
      scheduleMessage: (author, schedule) => scheduler.schedule(author, schedule),
      sendControl: (control) => messaging.sendControl(control),
    });
  }

  const tee = createTeeService({
    config: parseTeeConfig(env),
    logger,
    store: createDatabaseTeeAgentStore(database.db),
  });

  const app = createHttpApp({ logger, authToken: options.authToken, bodyLimit });
  app.route('/', serverRoutes(agents));
  app.route('/', teeRoutes(tee));
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

  async function mountPlugins() {
    const plugins = options.plugins ?? [];
    const table = await loadPlugins({
      agents: agents.list(),
      pluginsFor: (agent) => (typeof plugins === 'function' ? plugins(agent) : plugins),
      logger,
    });
    // Last, so that a STATIC folder at a broad path cannot hide a built-in route.
    app.route(
      '/',
      pluginRoutes(table, {
        authToken: options.authToken,
        bodyLimit,
        uploadLimit: options.uploadLimit,
        routeTimeoutMs: options.routeTimeoutMs,
      }),
    );
  }

  const lifecycle = createLifecycle({
    app,
    io,
    logger,
    host,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    async beforeListen() {
      await database.migrate(logger);
      await mountPlugins();
      await tee.register(agents.summaries().map(({ id, name }) => ({ agentId: id, name })));
    },
    afterListen(url) {
      serverUrl = url;
      scheduler.start();
      logger.info({ url, agents: agents.summaries() }, 'server listening');
    },
    async afterClose() {
      await tee.close();
      await scheduler.stop();
      await store.flushed();
      await database.close();
    },
  });

  return {
    app,
    io,
    agents,
    messaging,
    scheduler,
    logger,
    get url() {
      return serverUrl;
    },
    start: async () => {
      const started = await lifecycle.start(port);
      port = started.port;
      return started;
    },
    stop: lifecycle.stop,
  };
}

interface LifecycleOptions {
  app: Hono<AppEnv>;
  io: ParleySocketServer;
  logger: Logger;
  host: string;
  shutdownTimeoutMs: number;
  beforeListen(): Promise<void>;
  afterListen(url: string): void;
  afterClose(): Promise<void>;
}

/**
 * Start and graceful stop of the HTTP server that hono and socket.io share. In-flight requests are counted
 * (socket.io's own long-polls excepted, they end when the sockets close) so that stop can wait for them.
 */
function createLifecycle(options: LifecycleOptions) {
  const { app, io, logger, host } = options;
  let httpServer: HttpServer | undefined;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  let stopping: Promise<void> | undefined;
  const listener = getRequestListener(app.fetch);

  async function start(port: number) {
    if (httpServer) throw new Error('server already started');
    await options.beforeListen();
    const server = createHttpServer((request, response) => {
      if (!request.url?.startsWith('/socket.io/')) {
        inFlight += 1;
        response.once('close', () => {
          inFlight -= 1;
          if (inFlight === 0) drained?.();
        });
      }
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
    const bound = (server.address() as AddressInfo).port;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
    options.afterListen(url);
    return { url, port: bound };
  }

  async function shutdown() {
    const server = httpServer;
    if (!server) {
      await options.afterClose();
      return;
    }
    logger.info({ inFlight }, 'stopping');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // io.close() resolves only once the HTTP server has closed, i.e. after every request: start it, and let
    // the deadline below decide how long those requests get.
    const socketsClosed = io.close();
    if (inFlight > 0) {
      const finished = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), options.shutdownTimeoutMs);
        timer.unref();
        drained = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      if (!finished) logger.warn({ inFlight }, 'shutdown deadline passed; closing requests');
    }
    server.closeAllConnections();
    await Promise.all([closed, socketsClosed]);
    await options.afterClose();
    logger.info('stopped');
    logger.flush();
  }

  return { start, stop: () => (stopping ??= shutdown()) };
}
