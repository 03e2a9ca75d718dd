import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { connectClient } from '../../test/socket-client';
import { startTestServer } from '../../test/test-server';
import { createHandshakeLimiter } from './handshake-limiter';

const from = (remoteAddress: string) => ({ socket: { remoteAddress } }) as IncomingMessage;

describe('handshake limiter', () => {
  it('allows a burst per address, then the sustained rate, and keeps addresses apart', () => {
    const clock = { now: 0 };
    const allow = createHandshakeLimiter({ burst: 3, perSecond: 1 }, () => clock.now);
    const answers: boolean[] = [];
    const ask = (address: string) => allow(from(address), (_, ok) => answers.push(ok));
    for (let i = 0; i < 4; i += 1) ask('10.0.0.1');
    ask('10.0.0.2');
    expect(answers).toEqual([true, true, true, false, true]);
    clock.now += 1000;
    ask('10.0.0.1');
    ask('10.0.0.1');
    expect(answers.slice(5)).toEqual([true, false]);
  });

  it('refuses a connection flood from one address with connect_error, then serves it again', async () => {
    await using test = await startTestServer({ socketHandshakeLimit: { burst: 5, perSecond: 2 } });
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => connectClient(test.url, 'websocket')),
    );
    const connected = results.filter((result) => result.status === 'fulfilled');
    expect(connected).toHaveLength(5);
    for (const result of connected) result.value.disconnect();
    await expect
      .poll(
        () =>
          connectClient(test.url, 'websocket').then(
            (socket) => (socket.disconnect(), 'connected'),
            () => 'refused',
          ),
        { interval: 300, timeout: 5000 },
      )
      .toBe('connected');
  });

  it('refuses a handshake whose Host the REST interface would refuse (DNS rebinding)', async () => {
    await using test = await startTestServer();
    // A raw polling handshake: clients cannot choose their Host header, but a rebinding page's browser sends its
    // own name.
    const handshakeWithHost = (host: string) =>
      new Promise<number | undefined>((resolve) => {
        const request = httpRequest(
          `${test.url}/socket.io/?EIO=4&transport=polling`,
          { headers: { host } },
          (response) => {
            response.resume();
            resolve(response.statusCode);
          },
        );
        request.on('error', () => resolve(undefined));
        request.end();
      });
    expect(await handshakeWithHost('rebound.example')).toBe(403);
    expect(await handshakeWithHost(`localhost:${new URL(test.url).port}`)).toBe(200);
  });
});
