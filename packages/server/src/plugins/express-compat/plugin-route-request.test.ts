import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { defineRoute, type Route } from '@parley/plugin-sdk';
import multer from 'multer';
import { afterEach, describe, expect, it } from 'vitest';
import { createPluginTestApp } from '../create-plugin-test-app';

async function appWith(...routes: Route[]) {
  return createPluginTestApp({ plugins: [{ name: 'express', routes }], routeTimeoutMs: 5_000 });
}

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** Serves the app on a real HTTP server on a free loopback port. */
async function listen(app: { fetch: (request: Request) => Response | Promise<Response> }) {
  const listener = getRequestListener(app.fetch);
  const server = createServer((request, response) => void listener(request, response));
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('Express-style request', () => {
  it('has url and originalUrl with the query, path, method, params, query, headers and the runtime', async () => {
    const { app, agents } = await appWith(
      defineRoute({
        type: 'GET',
        path: '/items/:id',
        handler: (req, res, runtime) =>
          res.json({
            url: req.url,
            originalUrl: req.originalUrl,
            path: req.path,
            method: req.method,
            params: req.params,
            query: req.query,
            header: req.get('X-Thing'),
            sameRuntime: req.runtime === runtime,
          }),
      }),
    );
    const response = await app.request('/items/7?q=a%20b&n=1', { headers: { 'x-thing': 'yes' } });
    expect(await response.json()).toEqual({
      url: '/items/7?q=a%20b&n=1',
      originalUrl: '/items/7?q=a%20b&n=1',
      path: '/items/7',
      method: 'GET',
      params: { id: '7' },
      query: { q: 'a b', n: '1' },
      header: 'yes',
      sameRuntime: true,
    });
    expect(agents).toHaveLength(1);
  });

  it("replays the body as a stream: req.on('data') and 'end'", async () => {
    const { app } = await appWith(
      defineRoute({
        type: 'POST',
        path: '/raw',
        handler: (req, res) => {
          const chunks: Buffer[] = [];
          req.on('data', (chunk: Buffer) => chunks.push(chunk));
          req.on('end', () => res.json({ echoed: Buffer.concat(chunks).toString('utf8') }));
        },
      }),
    );
    const response = await app.request('/raw', {
      method: 'POST',
      body: 'line one\nline two',
      headers: { 'content-type': 'text/plain' },
    });
    expect(await response.json()).toEqual({ echoed: 'line one\nline two' });
  });

  it('lets multer parse an upload on a route that does not declare isMultipart, answering from its callback', async () => {
    const upload = multer({ storage: multer.memoryStorage() }).array('files', 5);
    const { app } = await appWith(
      defineRoute({
        type: 'POST',
        path: '/documents',
        handler: (req, res) => {
          // elizaOS's knowledge plugin does exactly this: the handler returns, multer answers later.
          upload(req as never, res as never, (error: unknown) => {
            if (error) return res.status(400).json({ error: (error as Error).message });
            const files = (req as unknown as { files: Express.Multer.File[] }).files;
            res.json({
              body: { ...(req.body as object) },
              files: files.map((file) => [file.originalname, file.size, file.buffer.toString()]),
            });
          });
        },
      }),
    );
    const form = new FormData();
    form.append('agentId', 'a1');
    form.append('files', new File(['hello'], 'a.txt', { type: 'text/plain' }));
    form.append('files', new File(['world!'], 'b.md', { type: 'text/markdown' }));
    const base = await listen(app);
    const response = await fetch(`${base}/documents`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      body: { agentId: 'a1' },
      files: [
        ['a.txt', 5, 'hello'],
        ['b.md', 6, 'world!'],
      ],
    });
  });

  it('knows the client address and streams server-sent events over a real connection', async () => {
    const { app } = await appWith(
      defineRoute({
        type: 'GET',
        path: '/who',
        handler: (req, res) => {
          res.setHeader('content-type', 'text/event-stream');
          res.flushHeaders();
          let sent = 0;
          const timer = setInterval(() => {
            sent += 1;
            res.write(`data: ${JSON.stringify({ ip: req.ip, sent })}\n\n`);
            if (sent === 3) {
              clearInterval(timer);
              res.end();
            }
          }, 1);
        },
      }),
    );
    const base = await listen(app);
    const response = await fetch(`${base}/who`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events).toHaveLength(3);
    const last = JSON.parse(events[2]!.replace(/^data: /, '')) as { ip: string; sent: number };
    expect(last.sent).toBe(3);
    expect(last.ip).toMatch(/127\.0\.0\.1$/);
  });
});

describe('per-route body limit', () => {
  it('lets a route accept more than the server body limit, and only that route', async () => {
    const echo = (_req: unknown, res: { json(body: unknown): void }) => res.json({ ok: true });
    const { app } = await createPluginTestApp({
      bodyLimit: 1024,
      plugins: [
        {
          name: 'limits',
          routes: [
            { type: 'POST', path: '/big', handler: echo, bodyLimit: 4096 },
            { type: 'POST', path: '/small', handler: echo },
          ],
        },
      ],
    });
    const body = JSON.stringify({ data: 'x'.repeat(3000) });
    const post = { method: 'POST', body, headers: { 'content-type': 'application/json' } };
    expect((await app.request('/big', post)).status).toBe(200);
    expect((await app.request('/small', post)).status).toBe(413);
    const tooBig = JSON.stringify({ data: 'x'.repeat(5000) });
    expect((await app.request('/big', { ...post, body: tooBig })).status).toBe(413);
  });

  it.each([0, -1, 1.5, 'big', 101 * 1024 * 1024])(
    'refuses bodyLimit %s at load, naming the plugin',
    async (bodyLimit) => {
      await expect(
        createPluginTestApp({
          plugins: [
            {
              name: 'limits',
              routes: [{ type: 'POST', path: '/x', handler: () => undefined, bodyLimit } as Route],
            },
          ],
        }),
      ).rejects.toThrow(/plugin "limits".*bodyLimit/);
    },
  );
});
