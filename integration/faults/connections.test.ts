import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { type Socket, connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createLogger, createServer, type ParleyServer } from '@parley/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/start-server';

const FLOOD = fileURLToPath(new URL('./connection-flood.mjs', import.meta.url));

// A real server with its connection limits: what the HTTP port and the socket transport share.
let server: ParleyServer;
let port: number;
const held: Socket[] = [];

beforeAll(async () => {
  ({ server, port } = await startServer({
    connections: {
      headersTimeoutMs: 500,
      requestTimeoutMs: 1_000,
      checkIntervalMs: 100,
      maxConnectionsPerAddress: 50,
      // Every connection in this test is loopback: count them as a remote attacker's would be.
      limitLoopback: true,
    },
  }));
});
afterAll(async () => {
  for (const socket of held.splice(0)) socket.destroy();
  await server?.stop();
});

/** A raw connection; resolves with what it received once the server closes it. */
function until(act: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    held.push(socket);
    let received = '';
    socket.on('connect', () => act(socket));
    socket.on('data', (data: Buffer) => (received += data.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
  });
}

/** GET /api/server/health from a given local address. */
function health(localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path: '/api/server/health', localAddress, agent: false },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('connections of a real server', () => {
  it('closes silent, half-header and trickling connections', async () => {
    const results = await Promise.all([
      until(() => undefined),
      until((socket) => socket.write('GET /api/server/health HTTP/1.1\r\nHost: localhost\r\n')),
      until((socket) => {
        socket.write(
          'POST /api/messaging/submit HTTP/1.1\r\nHost: localhost\r\n' +
            'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
        );
        const timer = setInterval(() => socket.write(' '), 50);
        socket.on('close', () => clearInterval(timer));
      }),
    ]);
    for (const received of results) expect(received).toMatch(/^HTTP\/1\.1 408/);
  });

  it('serves a fresh client while 1,100 idle connections are attempted from one address', async () => {
    const flood = Array.from({ length: 1_100 }, () => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      held.push(socket);
      return socket;
    });
    await Promise.all(
      flood.map(
        (socket) =>
          new Promise<void>((resolve) => {
            socket.once('connect', () => resolve());
            socket.once('close', () => resolve());
          }),
      ),
    );
    // Another client (all of 127/8 is loopback on Linux, so a second address needs no network) is served.
    expect(await health('127.0.0.2')).toBe(200);
    expect(await health('127.0.0.2')).toBe(200);
    expect(await health('127.0.0.3')).toBe(200);
  });
});

/** A flood run as its own process, holding `count` sockets over `addresses` local addresses, reopening each. */
function startFlood(target: number, count: number, addresses: number) {
  const child: ChildProcess = fork(FLOOD, [String(target), String(count), String(addresses)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ask = () =>
    new Promise<{ held: number; opened: number; closed: number }>((resolve) => {
      child.once('message', (state) => resolve(state as never));
      child.send('state');
    });
  return {
    /** Resolves once the flood has opened `opened` connections and the server has closed `closed` of them. */
    async until(opened: number, closed: number) {
      for (;;) {
        const state = await ask();
        if (state.opened >= opened && state.closed >= closed) return state;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.send('stop');
      await exited;
    },
  };
}

/** `count` health probes from `localAddress`, released together; resolves with how many got 200. */
async function probes(target: number, localAddress: string, count: number): Promise<number> {
  const statuses = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<number>((resolve) => {
          const request = httpRequest(
            {
              host: '127.0.0.1',
              port: target,
              path: '/api/server/health',
              localAddress,
              agent: false,
            },
            (response) => {
              response.resume();
              resolve(response.statusCode ?? 0);
            },
          );
          request.on('error', () => resolve(0));
          request.end();
        }),
    ),
  );
  return statuses.filter((status) => status === 200).length;
}

describe('a connection flood that reopens what the server closes', () => {
  async function floodedServer(connections: Record<string, unknown>) {
    const flooded = createServer({
      port: 0,
      logger: createLogger('silent'),
      env: {},
      database: { kind: 'pglite', dataDir: 'memory' },
      connections: { headersTimeoutMs: 2_000, requestTimeoutMs: 4_000, ...connections },
    });
    const started = await flooded.start();
    return { flooded, port: started.port };
  }

  it(
    'serves fresh clients during and after 2,100 reopening sockets from one local client',
    { timeout: 300_000 },
    async () => {
      const { flooded, port: target } = await floodedServer({ maxConnections: 2_000 });
      const flood = startFlood(target, 2_100, 1);
      try {
        // The cap is full and the server is closing sockets the flood at once reopens.
        await flood.until(2_100, 200);
        expect(await probes(target, '127.0.0.2', 30)).toBe(30);
        await flood.until(2_100, 400);
        expect(await probes(target, '127.0.0.3', 30)).toBe(30);
      } finally {
        await flood.stop();
      }
      expect(await probes(target, '127.0.0.2', 3)).toBe(3);
      await flooded.stop();
    },
  );

  it(
    'serves fresh clients during and after 21 addresses × 100 reopening sockets',
    { timeout: 300_000 },
    async () => {
      const { flooded, port: target } = await floodedServer({
        maxConnections: 2_000,
        maxConnectionsPerAddress: 100,
        // Loopback addresses stand in for remote ones here.
        limitLoopback: true,
      });
      const flood = startFlood(target, 2_100, 21);
      try {
        await flood.until(2_100, 200);
        expect(await probes(target, '127.0.0.50', 30)).toBe(30);
      } finally {
        await flood.stop();
      }
      expect(await probes(target, '127.0.0.50', 3)).toBe(3);
      await flooded.stop();
    },
  );
});
