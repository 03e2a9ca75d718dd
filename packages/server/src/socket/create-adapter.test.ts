import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import {
  createServer as createNetServer,
  type AddressInfo,
  type Socket as NetSocket,
} from 'node:net';
import type { Server } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresDatabase, postgresUnavailableReason } from '../../test/databases';
import { createLogger } from '../logger';
import type { ClusterOptions } from './create-adapter';
import { createSocketServer, socketServerReady } from './create-socket-server';

const ROOM = 'room-1';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A socket.io server on a free port whose connections join ROOM; untyped so the test may emit anything. */
async function startNode(
  cluster: ClusterOptions,
  logger = createLogger('silent'),
): Promise<{ io: Server; url: string }> {
  const io = createSocketServer({
    logger,
    maxPayloadBytes: 1024 * 1024,
    cluster,
  }) as unknown as Server;
  io.on('connection', (socket) => void socket.join(ROOM));
  const http: HttpServer = createHttpServer();
  io.attach(http);
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  await socketServerReady(io as never);
  cleanups.push(() => io.close());
  return { io, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

async function connectToRoom(url: string): Promise<Socket> {
  const socket = connect(url, { transports: ['websocket'], reconnection: false, forceNew: true });
  cleanups.push(() => Promise.resolve(socket.disconnect()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return socket;
}

/** Collects every `probe` payload the socket receives. */
function collect(socket: Socket): unknown[] {
  const received: unknown[] = [];
  socket.on('probe', (value: unknown) => received.push(value));
  return received;
}

/** Emits from `from` until `socket` hears it: an adapter starts listening asynchronously. */
async function warmUp(from: Server, socket: Socket): Promise<void> {
  const heard = new Promise<void>((resolve) => socket.once('warm', () => resolve()));
  const timer = setInterval(() => from.to(ROOM).emit('warm'), 100);
  try {
    await heard;
  } finally {
    clearInterval(timer);
  }
}

/** Resolves once `socket` has received a `probe` equal to `value`. */
function heard(socket: Socket, value: unknown): Promise<void> {
  return new Promise((resolve) => {
    const listener = (received: unknown) => {
      if (JSON.stringify(received) !== JSON.stringify(value)) return;
      socket.off('probe', listener);
      resolve();
    };
    socket.on('probe', listener);
  });
}

type Node = Awaited<ReturnType<typeof startNode>>;

/** Two nodes on a PostgreSQL database of their own. */
async function startPostgresPair(): Promise<[Node, Node]> {
  const database = await createPostgresDatabase();
  cleanups.push(() => database.dispose());
  if (database.location.kind !== 'postgres') throw new Error('expected PostgreSQL');
  const cluster: ClusterOptions = { kind: 'postgres', connectionString: database.location.url };
  return [await startNode(cluster), await startNode(cluster)];
}

describe.skipIf(await postgresUnavailableReason())('cluster adapter on PostgreSQL', () => {
  it('delivers a broadcast from one process to the room members of another, once', async () => {
    const [a, b] = await startPostgresPair();
    const onA = await connectToRoom(a.url);
    const onB = await connectToRoom(b.url);
    await warmUp(a.io, onB);
    const [fromA, fromB] = [collect(onA), collect(onB)];

    const large = 'x'.repeat(20_000); // over NOTIFY's limit: goes through socket_io_attachments
    a.io.to(ROOM).emit('probe', 'small');
    a.io.to(ROOM).emit('probe', large);
    a.io.to(ROOM).emit('probe', 'last');
    await heard(onB, 'last');
    b.io.to(ROOM).emit('probe', 'back');
    await Promise.all([heard(onA, 'back'), heard(onB, 'back')]);

    expect(fromB).toEqual(['small', large, 'last', 'back']); // 'back' is B's own, local
    expect(fromA).toEqual(['small', large, 'last', 'back']);
  });

  it('delivers a burst released together whole and in order, repeats and large events included', async () => {
    const [a, b] = await startPostgresPair();
    const onB = await connectToRoom(b.url);
    await warmUp(a.io, onB);
    const fromB = collect(onB);

    // In one tick: sent as few statements, where identical payloads (which PostgreSQL would deliver once
    // per transaction) and events over NOTIFY's limit must keep their place.
    const sent: unknown[] = [];
    for (let i = 0; i < 3000; i += 1) {
      const value = i % 500 === 250 ? `${i}:${'y'.repeat(9000)}` : i % 100 < 3 ? 'same' : i;
      sent.push(value);
      a.io.to(ROOM).emit('probe', value);
    }
    a.io.to(ROOM).emit('probe', 'end');
    await heard(onB, 'end');
    expect(fromB).toEqual([...sent, 'end']);
  }, 60_000);

  it('an event JSON cannot carry is dropped alone; the events around it still go out', async () => {
    const [a, b] = await startPostgresPair();
    const onB = await connectToRoom(b.url);
    await warmUp(a.io, onB);
    const fromB = collect(onB);
    a.io.to(ROOM).emit('probe', 'before');
    a.io.serverSideEmit('unencodable', 10n); // to the other processes only: JSON has no BigInt
    a.io.to(ROOM).emit('probe', 'after');
    await heard(onB, 'after');
    a.io.to(ROOM).emit('probe', 'later');
    await heard(onB, 'later');
    expect(fromB).toEqual(['before', 'after', 'later']);
  });
});

describe('cluster adapter on a PostgreSQL that does not answer', () => {
  it("serves the process's own members at once, and its queue to the others stops at its bound", async () => {
    // A database that accepts connections and never answers.
    const silent = createNetServer((socket) => socket.on('error', () => undefined));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const held = new Set<NetSocket>();
    silent.on('connection', (socket) => held.add(socket));
    cleanups.push(async () => {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    const port = (silent.address() as AddressInfo).port;
    const node = await startNode(
      { kind: 'postgres', connectionString: `postgres://postgres@127.0.0.1:${port}/silent` },
      logger,
    );
    const member = await connectToRoom(node.url);
    const heardAll = new Promise<number[]>((resolve) => {
      const got: number[] = [];
      member.on('probe', (value: number) => {
        got.push(value);
        if (got.length === 10_500) resolve(got);
      });
    });
    // Released together, more than the queue holds.
    for (let i = 0; i < 10_500; i += 1) node.io.to(ROOM).emit('probe', i);
    expect(await heardAll).toEqual(Array.from({ length: 10_500 }, (_, i) => i));
    expect(lines.some((line) => line.includes('cluster publish queue full'))).toBe(true);
  }, 60_000);
});

/** A free loopback port for the test's own redis-server. */
async function freePort(): Promise<number> {
  const server = createNetServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await new Promise<void>((resolve, reject) => {
    redis.once('error', reject);
    redis.stdout?.on('data', (data: Buffer) => {
      if (data.toString().includes('Ready to accept')) resolve();
    });
  });
  return redis;
}

const redisMissing = await startRedis(await freePort()).then(
  (redis) => {
    redis.kill('SIGKILL');
    return undefined;
  },
  () => 'redis-server is not installed',
);

describe.skipIf(redisMissing)('cluster adapter on Redis', () => {
  it('keeps delivering across a Redis restart, including what was sent right after it', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    cleanups.push(() => Promise.resolve(redis.kill('SIGKILL')));
    const cluster: ClusterOptions = { kind: 'redis', url: `redis://127.0.0.1:${port}` };
    const [a, b] = [await startNode(cluster), await startNode(cluster)];
    const onB = await connectToRoom(b.url);
    await warmUp(a.io, onB);
    const fromB = collect(onB);
    a.io.to(ROOM).emit('probe', 'before');
    await heard(onB, 'before');

    redis.kill('SIGKILL');
    await once(redis, 'exit');
    redis = await startRedis(port);
    // Sent at once: the pub/sub adapter loses this one while its subscriber reconnects.
    a.io.to(ROOM).emit('probe', 'after');
    await heard(onB, 'after');

    expect(fromB).toEqual(['before', 'after']);
  }, 30_000);
});
