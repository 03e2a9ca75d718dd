import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createHttpApp, type HttpAppOptions } from '../http/create-app';
import { createHostPolicy, defaultAllowedHosts, isLoopbackHost } from './host-allow-list';
import { isJsonContentType } from './json-content-type';

const channelPath = '/api/messaging/channels/3f2504e0-4f89-41d3-9a0c-0305e82c3301/messages';

/** An app with a stand-in for each kind of endpoint; `hits` counts the handlers that really ran. */
function appWith(options: Partial<HttpAppOptions> = {}) {
  const app = createHttpApp({ logger: pino({ level: 'silent' }), bodyLimit: 4096, ...options });
  const hits: string[] = [];
  app.post('/api/messaging/submit', (c) => {
    hits.push('submit');
    return c.json({ success: true }, 201);
  });
  app.post(channelPath, (c) => {
    hits.push('channel');
    return c.json({ success: true }, 202);
  });
  app.get(channelPath, (c) => {
    hits.push('history');
    return c.json({ success: true, data: [] });
  });
  app.post('/webhook', (c) => {
    hits.push('webhook');
    return c.json({ success: true });
  });
  return { app, hits };
}

const body = JSON.stringify({ text: 'hi', entityId: 'u' });

describe('browser safety without a token', () => {
  it('refuses a text/plain cross-site POST to submit or channel messages, and runs nothing', async () => {
    const { app, hits } = appWith();
    for (const path of ['/api/messaging/submit', channelPath]) {
      const response = await app.request(`http://localhost:3000${path}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', origin: 'http://evil.example' },
        body,
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    }
    // Plugin routes too: a foreign page cannot make the agent act through a webhook.
    const webhook = await app.request('http://localhost:3000/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body,
    });
    expect(webhook.status).toBe(403);
    expect(hits).toEqual([]);
  });

  it('requires a JSON content type on JSON endpoints (415), even without an Origin', async () => {
    const { app, hits } = appWith();
    for (const type of [undefined, 'text/plain', 'application/x-www-form-urlencoded']) {
      const response = await app.request(`http://localhost${channelPath}`, {
        method: 'POST',
        headers: type ? { 'content-type': type } : {},
        body,
      });
      expect(response.status).toBe(415);
      expect(await response.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    }
    const ok = await app.request(`http://localhost${channelPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body,
    });
    expect(ok.status).toBe(202);
    expect(hits).toEqual(['channel']);
  });

  it('does not serve history (or anything) for a foreign Host when bound to loopback', async () => {
    const { app, hits } = appWith({ bindHost: '127.0.0.1' });
    const rebound = await app.request(`http://evil.example:3000${channelPath}`);
    expect(rebound.status).toBe(403);
    expect(hits).toEqual([]);
    for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000']) {
      expect((await app.request(`http://${host}${channelPath}`)).status).toBe(200);
    }
  });

  it('without a known bind address, decides by the connection: loopback ones need a loopback Host', async () => {
    const { app, hits } = appWith();
    expect((await app.request(`http://evil.example${channelPath}`)).status).toBe(403);
    const listener = getRequestListener(app.fetch);
    const server = createServer((request, response) => void listener(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const get = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          { port, host: '127.0.0.1', path: channelPath, headers: { host }, agent: false },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end();
      });
    try {
      expect(await get(`evil.example:${port}`)).toBe(403);
      expect(await get(`localhost:${port}`)).toBe(200);
      expect(hits).toEqual(['history']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('takes an explicit Host allow-list; bound beyond loopback, only a loopback connection is held to loopback Hosts', async () => {
    const listed = appWith({ allowedHosts: ['parley.example.com', '.internal.example'] }).app;
    expect((await listed.request(`http://parley.example.com${channelPath}`)).status).toBe(200);
    expect((await listed.request(`http://a.internal.example${channelPath}`)).status).toBe(200);
    expect((await listed.request(`http://localhost${channelPath}`)).status).toBe(403);
    // Bound beyond loopback: a request that came over loopback (or in process) must still name a loopback Host
    // (a rebound DNS name reaches nothing); one that came from another address may name any.
    const open = appWith({ bindHost: '0.0.0.0' }).app;
    expect((await open.request(`http://anything.example${channelPath}`)).status).toBe(403);
    expect((await open.request(`http://localhost${channelPath}`)).status).toBe(200);
    const policy = createHostPolicy({ bindHost: '0.0.0.0' });
    expect(policy('anything.example', '10.0.0.5')).toBe(true);
    expect(policy('anything.example', '127.0.0.1')).toBe(false);
    expect(policy('anything.example', '::ffff:127.0.0.1')).toBe(false);
  });

  it('answers CORS for its own, loopback and listed origins only', async () => {
    const { app } = appWith({ allowedOrigins: ['https://app.example.com'] });
    const preflight = (origin: string) =>
      app.request(`http://localhost:3000${channelPath}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    for (const origin of [
      'https://app.example.com',
      'http://localhost:5173',
      'http://localhost:3000',
    ]) {
      const response = await preflight(origin);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    }
    const foreign = await preflight('https://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

    // A simple GET from a foreign page is answered without CORS headers: the browser keeps it from the page.
    const read = await app.request(`http://localhost:3000${channelPath}`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    // A server calling a webhook sends no Origin and is not affected.
    const server = await app.request('http://localhost:3000/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(server.status).toBe(200);
  });
});

describe('helpers', () => {
  it('isJsonContentType', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('Application/JSON; charset=utf-8')).toBe(true);
    expect(isJsonContentType('application/merge-patch+json')).toBe(true);
    expect(isJsonContentType('text/plain')).toBe(false);
    expect(isJsonContentType('application/jsonx')).toBe(false);
    expect(isJsonContentType(undefined)).toBe(false);
  });

  it('isLoopbackHost and defaultAllowedHosts', () => {
    for (const host of ['localhost', '127.0.0.1', '::1', '[::1]', 'app.localhost', '127.1.2.3']) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com']) {
      expect(isLoopbackHost(host)).toBe(false);
    }
    expect(defaultAllowedHosts('127.0.0.1')).toContain('localhost');
    expect(defaultAllowedHosts('0.0.0.0')).toBeUndefined();
  });
});
