import { request as httpRequest } from 'node:http';
import { type Socket, connect } from 'node:net';
import { createLogger, createServer } from '@parley/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A real server with its connection limits: what the HTTP port and the socket transport share.
let server: ReturnType<typeof createServer>;
let port: number;
const held: Socket[] = [];

beforeAll(async () => {
  server = createServer({
    port: 0,
    logger: createLogger('silent'),
    env: {},
    database: { kind: 'pglite', dataDir: 'memory' },
    connections: {
      headersTimeoutMs: 500,
      requestTimeoutMs: 1_000,
      checkIntervalMs: 100,
      maxConnectionsPerAddress: 50,
      // Every connection in this test is loopback: count them as a remote attacker's would be.
      limitLoopback: true,
    },
  });
  ({ port } = await server.start());
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
    // And again once the flood has met the per-address cap and the header timeout (counted server-side in
    // packages/server/src/http/connection-limits.test.ts: from the client side, connections the kernel dropped
    // from a full accept queue still look open).
    expect(await health('127.0.0.2')).toBe(200);
    expect(await health('127.0.0.3')).toBe(200);
  });
});
