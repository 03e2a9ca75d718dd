import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { AppEnv } from './http/app-env';
import { failure } from './http/envelope';
import type { ParleySocketServer } from './socket/create-socket-server';

/** What the lifecycle starts and stops. */
export interface LifecycleOptions {
  app: Hono<AppEnv>;
  io: ParleySocketServer;
  logger: Logger;
  host: string;
  shutdownTimeoutMs: number;
  /**
   * How long a stopping server still answers on connections it has (and accepts new ones), with
   * `Connection: close` on every response, before it stops listening (default 1000 ms, at most the shutdown
   * deadline). Keep-alive clients learn to reconnect elsewhere instead of having a request they just sent on
   * an idle connection reset.
   */
  drainGraceMs?: number;
  /** Applied to the HTTP server before it listens (timeouts, connection limits). */
  configureHttpServer?: (server: HttpServer) => void;
  beforeListen(): Promise<void>;
  afterListen(url: string): void;
  /** Called once no new request is accepted, before in-flight requests are waited for. */
  beforeDrain?(): void;
  /** Called when the drain deadline passed with requests still open, before they are closed. */
  onDrainDeadline?(): void;
  afterClose(): Promise<void>;
}

/** A started server's address. */
export interface Listening {
  url: string;
  port: number;
}

/** How long answers given at the shutdown deadline get to reach their clients before connections are closed. */
const DEADLINE_ANSWER_MS = 1000;

/** The answer to a request still waiting when the shutdown deadline passes: it is told, not reset. */
function stoppingAnswer(): Response {
  return new Response(
    JSON.stringify(failure('UNAVAILABLE', 'The server is stopping; retry later')),
    {
      status: 503,
      headers: { 'content-type': 'application/json', 'retry-after': '1', connection: 'close' },
    },
  );
}

/**
 * Start and graceful stop of the HTTP server that hono and socket.io share. In-flight requests (streams
 * included) are counted, socket.io's own long-polls excepted since they end when the sockets close, so that
 * stop lets them finish up to the deadline; a request whose answer has not begun by then (one waiting on a
 * database that stopped answering, say) is answered 503 before the connections close.
 */
export function createLifecycle(options: LifecycleOptions) {
  const { app, io, logger, host } = options;
  let httpServer: HttpServer | undefined;
  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | undefined;
  let stopping: Promise<void> | undefined;
  /** Per request whose answer has not begun: answers it 503 instead (at the shutdown deadline). */
  const unanswered = new Set<() => void>();
  const listener = getRequestListener((request, env) => {
    const answer = app.fetch(request, env);
    if (!(answer instanceof Promise)) return answer;
    let cutOff!: () => void;
    const stopped = new Promise<Response>((resolve) => (cutOff = () => resolve(stoppingAnswer())));
    unanswered.add(cutOff);
    return Promise.race([answer, stopped]).finally(() => unanswered.delete(cutOff));
  });

  async function start(port: number): Promise<Listening> {
    if (httpServer) throw new Error('server already started');
    await options.beforeListen();
    const server = createHttpServer((request, response) => {
      if (draining) response.setHeader('connection', 'close');
      if (!request.url?.startsWith('/socket.io/')) {
        inFlight += 1;
        response.once('close', () => {
          inFlight -= 1;
          if (inFlight === 0) drained?.();
        });
      }
      void listener(request, response);
    });
    options.configureHttpServer?.(server);
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
      // A start that failed before listening never attached socket.io, so io.close() would fail on its missing
      // engine; but the room adapters were made with it (on PostgreSQL, a LISTEN connection) and close here.
      await Promise.allSettled(
        [...io._nsps.values()].map(async (namespace) => {
          await namespace.adapter.close();
        }),
      );
      await options.afterClose();
      return;
    }
    // Everything below is bounded: the drain and the stores' close each by the shutdown deadline.
    logger.info({ inFlight }, 'stopping');
    draining = true;
    options.beforeDrain?.();
    const grace = Math.min(options.drainGraceMs ?? 1000, options.shutdownTimeoutMs);
    if (grace > 0) await new Promise((resolve) => setTimeout(resolve, grace).unref());
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
      if (!finished) {
        logger.warn({ inFlight }, 'shutdown deadline passed; closing requests');
        options.onDrainDeadline?.();
        for (const cutOff of unanswered) cutOff();
        await drainedWithin(DEADLINE_ANSWER_MS);
      }
    }
    server.closeAllConnections();
    await Promise.all([closed, socketsClosed]);
    // Closing the stores waits on the database; a database that stopped answering must not hold the
    // process: after the deadline, what is left is abandoned (the process is about to exit anyway).
    let deadline: NodeJS.Timeout | undefined;
    const closedInTime = await Promise.race([
      options.afterClose().then(() => true),
      new Promise<boolean>((resolve) => {
        deadline = setTimeout(() => resolve(false), options.shutdownTimeoutMs);
        deadline.unref();
      }),
    ]);
    clearTimeout(deadline);
    if (!closedInTime)
      logger.warn('the stores did not close before the shutdown deadline; leaving them');
    logger.info('stopped');
    logger.flush();
  }

  /** Resolves when no request is in flight, or after `ms`. */
  function drainedWithin(ms: number): Promise<void> {
    if (inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  return {
    start,
    stop: () => (stopping ??= shutdown()),
    /** Whether the server is stopping (readiness should fail: take no new traffic). */
    get draining() {
      return draining;
    },
  };
}
