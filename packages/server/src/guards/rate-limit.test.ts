import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http/create-app';
import type { RateLimitOptions } from './rate-limit';

let server: Server | undefined;
let now = 0;

async function start(rateLimit: RateLimitOptions, authToken?: string) {
  const app = createHttpApp({
    logger: pino({ level: 'silent' }),
    bodyLimit: 4096,
    authToken,
    rateLimit: { now: () => now, ...rateLimit },
  });
  app.get('/api/messaging/channels/:id/messages', (c) => c.json({ success: true, data: [] }));
  app.post('/webhook', (c) => c.json({ success: true }));
  app.get('/api/server/health', (c) => c.json({ status: 'ok' }));
  const listener = getRequestListener(app.fetch);
  server = createServer((request, response) => void listener(request, response));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);
}

afterEach(async () => {
  now = 0;
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  }
});

const history = '/api/messaging/channels/3f2504e0-4f89-41d3-9a0c-0305e82c3301/messages';

describe('per-client rate limits', () => {
  it('answers 429 with Retry-After past the burst, and serves again once refilled', async () => {
    const request = await start({ burst: 3, perSecond: 0.5, limitLoopback: true });
    const statuses = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await request(history)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await request(history);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toMatchObject({
      success: false,
      error: { code: 'RATE_LIMITED', details: { retryAfterSeconds: 2 } },
    });
    now += 2_000;
    expect((await request(history)).status).toBe(200);
  });

  it('gives messaging and plugin routes separate budgets, and leaves other endpoints alone', async () => {
    const request = await start({ burst: 1, perSecond: 0.001, limitLoopback: true });
    expect((await request(history)).status).toBe(200);
    expect((await request(history)).status).toBe(429);
    const webhook = () =>
      request('/webhook', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
    expect((await webhook()).status).toBe(200);
    expect((await webhook()).status).toBe(429);
    expect((await request('/api/server/health')).status).toBe(200);
    expect((await request('/api/server/health')).status).toBe(200);
  });

  it('counts the server token as its own client, and made-up keys against the address', async () => {
    const request = await start({ burst: 1, perSecond: 0.001, limitLoopback: true }, 'secret');
    const withKey = (key: string) => request(history, { headers: { 'x-api-key': key } });
    expect((await withKey('secret')).status).toBe(200);
    expect((await withKey('secret')).status).toBe(429);
    // Wrong keys share the address's bucket: rotating them does not buy more requests.
    expect((await withKey('guess-1')).status).toBe(401);
    expect((await withKey('guess-2')).status).toBe(429);
  });

  it('does not limit loopback peers by default, and reads the proxy address when trusted', async () => {
    const local = await start({ burst: 1, perSecond: 0.001 });
    expect((await local(history)).status).toBe(200);
    expect((await local(history)).status).toBe(200);
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));

    const proxied = await start({ burst: 1, perSecond: 0.001, trustProxy: true });
    const from = (address: string) =>
      proxied(history, { headers: { 'x-forwarded-for': `1.1.1.1, ${address}` } });
    expect((await from('203.0.113.7')).status).toBe(200);
    expect((await from('203.0.113.7')).status).toBe(429);
    expect((await from('203.0.113.8')).status).toBe(200);
  });
});
