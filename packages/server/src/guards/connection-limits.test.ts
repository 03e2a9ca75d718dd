import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyConnectionLimits,
  isLoopbackAddress,
  type ConnectionLimitOptions,
} from './connection-limits';

let server: Server | undefined;
const sockets: Socket[] = [];

async function start(options: ConnectionLimitOptions) {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.end('ok'));
  });
  const state = applyConnectionLimits(server, options);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, state };
}

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  }
});

/** A raw TCP connection that runs `act` once connected; resolves with what it got when the server closes it. */
function rawConnection(port: number, act: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let received = '';
    socket.on('connect', () => act(socket));
    socket.on('data', (data: Buffer) => (received += data.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
  });
}

/** GET / from a given local address; resolves with the status. */
function get(port: number, localAddress = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path: '/', localAddress, agent: false },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('applyConnectionLimits', () => {
  const quick = { headersTimeoutMs: 200, requestTimeoutMs: 400, checkIntervalMs: 50 };

  it('closes connections that send nothing, half a header, or a body at a trickle', async () => {
    const { port } = await start(quick);
    const silent = rawConnection(port, () => undefined);
    const halfHeader = rawConnection(port, (socket) =>
      socket.write('POST / HTTP/1.1\r\nHost: localhost\r\n'),
    );
    const trickle = rawConnection(port, (socket) => {
      socket.write('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n');
      const timer = setInterval(() => socket.write('a'), 20);
      socket.on('close', () => clearInterval(timer));
    });
    // Each is answered 408 and closed by the server (the client never closes them itself).
    for (const received of await Promise.all([silent, halfHeader, trickle])) {
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    }
    // A client that behaves is served.
    expect(await get(port)).toBe(200);
  });

  it('closes an idle keep-alive connection after its timeout', async () => {
    const { port } = await start({ ...quick, keepAliveTimeoutMs: 100 });
    const received = await rawConnection(port, (socket) =>
      socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n'),
    );
    expect(received).toMatch(/^HTTP\/1\.1 200/);
  });

  it(
    'serves a fresh client while 1,100 idle connections come from one address',
    { timeout: 300_000 },
    async () => {
      const { port, state } = await start({
        headersTimeoutMs: 60_000,
        requestTimeoutMs: 120_000,
        maxConnectionsPerAddress: 50,
        limitLoopback: true,
      });
      const attempts = 1_100;
      // Behaviour, not time: every connection beyond the 50th from this address is closed by the server (each
      // resolves on its own close event), whatever the machine's speed.
      let closedByServer = 0;
      let allRefused!: () => void;
      const refused = new Promise<void>((resolve) => (allRefused = resolve));
      // Opened in waves of 100, each wave settled (connected or closed) before the next, so that the listen
      // backlog never overflows: a SYN the kernel drops is retried for minutes, which is the machine's limit,
      // not the server's.
      for (let wave = 0; wave < attempts; wave += 100) {
        const settled: Promise<void>[] = [];
        for (let index = wave; index < Math.min(wave + 100, attempts); index += 1) {
          const socket = connect(port, '127.0.0.1');
          socket.on('error', () => undefined);
          socket.resume();
          socket.on('close', () => {
            closedByServer += 1;
            if (closedByServer === attempts - 50) allRefused();
          });
          settled.push(
            new Promise((resolve) => {
              socket.once('connect', () => resolve());
              socket.once('close', () => resolve());
            }),
          );
          sockets.push(socket);
        }
        await Promise.all(settled);
      }
      await refused;
      expect(state.refusedPerAddress).toBe(attempts - 50);
      expect(state.perAddress.get('127.0.0.1')).toBe(50);
      // Another address (all of 127/8 is loopback on Linux) is not affected by the first one's bound.
      expect(await get(port, '127.0.0.2')).toBe(200);
    },
  );

  it('at the cap, makes room by closing the oldest idle connection; a busy one keeps its place', async () => {
    const { port, state } = await start({
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 120_000,
      maxConnections: 3,
    });
    const closed: string[] = [];
    const open = (name: string) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.resume();
      socket.on('close', () => closed.push(name));
      sockets.push(socket);
      return new Promise<Socket>((resolve) => socket.once('connect', () => resolve(socket)));
    };
    await open('first');
    await expect.poll(() => state.open, { timeout: 30_000 }).toBe(1);
    await open('second');
    await open('third');
    await expect.poll(() => state.open, { timeout: 30_000 }).toBe(3);
    // A fourth takes the oldest idle one's place and is served.
    expect(await get(port, '127.0.0.2')).toBe(200);
    await expect.poll(() => closed, { timeout: 30_000 }).toContain('first');
    expect(closed).not.toContain('second');
    expect(state.evictedIdle).toBeGreaterThanOrEqual(1);
  });

  it('leaves loopback peers out of the per-address bound unless asked', async () => {
    const { port, state } = await start({ maxConnectionsPerAddress: 1 });
    expect(await Promise.all([get(port), get(port), get(port)])).toEqual([200, 200, 200]);
    expect(state.refusedPerAddress).toBe(0);
  });

  it('refuses a header timeout longer than the request timeout', () => {
    expect(() =>
      applyConnectionLimits(createServer(), { headersTimeoutMs: 10, requestTimeoutMs: 5 }),
    ).toThrow(RangeError);
  });

  it('recognises loopback addresses', () => {
    expect(isLoopbackAddress('127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('127.9.9.9')).toBe(true);
    expect(isLoopbackAddress('::1')).toBe(true);
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('10.0.0.1')).toBe(false);
    expect(isLoopbackAddress('::ffff:8.8.8.8')).toBe(false);
    expect(isLoopbackAddress(undefined)).toBe(false);
  });
});
