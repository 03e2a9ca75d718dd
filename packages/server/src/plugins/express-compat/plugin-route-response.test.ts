import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { HttpRouteResponse, Route } from '@parley/plugin-sdk';
import { defineRoute } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPluginTestApp } from '../create-plugin-test-app';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

async function appWith(...routes: Route[]) {
  return createPluginTestApp({ plugins: [{ name: 'express', routes }], routeTimeoutMs: 5_000 });
}

let base: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'parley-sendfile-'));
  await mkdir(join(base, 'root/docs'), { recursive: true });
  await mkdir(join(base, 'outside'), { recursive: true });
  await writeFile(join(base, 'root/docs/guide.html'), '<h1>guide</h1>');
  await writeFile(join(base, 'root/.env'), 'SECRET=1');
  await writeFile(join(base, 'outside/secret.txt'), 'top secret');
  await symlink(join(base, 'outside/secret.txt'), join(base, 'root/leak.txt'));
  await symlink(join(base, 'root/.env'), join(base, 'root/env.txt'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('Express-style response', () => {
  it('json returns the response, so chains like res.status(201).json(x).end() hold', async () => {
    let returned: unknown;
    let self: unknown;
    const { app } = await appWith(
      defineRoute({
        type: 'GET',
        path: '/chain',
        handler: (_req, res) => {
          self = res;
          returned = res.status(201).json({ ok: true });
        },
      }),
    );
    const response = await app.request('/chain');
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ ok: true });
    expect(returned).toBe(self);
  });

  it('send: objects and arrays as JSON, bytes as bytes, strings as text', async () => {
    const { app } = await appWith(
      defineRoute({ type: 'GET', path: '/object', handler: (_req, res) => res.send({ a: 1 }) }),
      defineRoute({ type: 'GET', path: '/array', handler: (_req, res) => res.send([1, 2]) }),
      defineRoute({
        type: 'GET',
        path: '/buffer',
        handler: (_req, res) => res.send(Buffer.from([0, 255, 7])),
      }),
      defineRoute({ type: 'GET', path: '/text', handler: (_req, res) => res.send('hi') }),
    );
    const object = await app.request('/object');
    expect(object.headers.get('content-type')).toContain('application/json');
    expect(await object.json()).toEqual({ a: 1 });
    expect(await (await app.request('/array')).json()).toEqual([1, 2]);
    const buffer = await app.request('/buffer');
    expect(buffer.headers.get('content-type')).toBe('application/octet-stream');
    expect(new Uint8Array(await buffer.arrayBuffer())).toEqual(new Uint8Array([0, 255, 7]));
    expect(await (await app.request('/text')).text()).toBe('hi');
  });

  it('statusCode and end, as Node-style handlers write them', async () => {
    const { app } = await appWith(
      defineRoute({
        type: 'POST',
        path: '/node',
        handler: (_req, res) => {
          res.statusCode = 401;
          res.end('Webhook signature required');
        },
      }),
    );
    const response = await app.request('/node', { method: 'POST' });
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('Webhook signature required');
  });

  it('writeHead then end (the elizaOS knowledge plugin answer), with headersSent and getHeader', async () => {
    const seen: Array<[boolean, unknown]> = [];
    const { app } = await appWith(
      defineRoute({
        type: 'GET',
        path: '/panel',
        handler: (_req, res) => {
          res.setHeader('x-list', ['a', 'b']);
          seen.push([res.headersSent, res.getHeader('X-List')]);
          res.writeHead(200, { 'Content-Type': 'text/html' });
          seen.push([res.headersSent, res.getHeader('content-type')]);
          res.end('<html></html>');
        },
      }),
    );
    const response = await app.request('/panel');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(response.headers.get('x-list')).toBe('a, b');
    expect(await response.text()).toBe('<html></html>');
    expect(seen).toEqual([
      [false, ['a', 'b']],
      [true, 'text/html'],
    ]);
  });

  it('redirects with 302 by default or the given status', async () => {
    const { app } = await appWith(
      defineRoute({ type: 'GET', path: '/old', handler: (_req, res) => res.redirect('/new') }),
      defineRoute({
        type: 'GET',
        path: '/moved',
        handler: (_req, res) => res.redirect(301, 'https://example.com/x'),
      }),
    );
    const found = await app.request('/old');
    expect(found.status).toBe(302);
    expect(found.headers.get('location')).toBe('/new');
    const moved = await app.request('/moved');
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('https://example.com/x');
  });

  it('streams what the handler writes as it writes it (server-sent events), until end', async () => {
    const next = deferred();
    const { app } = await appWith(
      defineRoute({
        type: 'GET',
        path: '/events',
        handler: (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: one\n\n');
          // The handler returns at once; later writes still reach the client.
          void next.promise.then(() => {
            res.write('data: two\n\n');
            res.end();
          });
        },
      }),
    );
    const response = await app.request('/events');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe('data: one\n\n');
    next.resolve();
    expect((await reader.read()).value).toBe('data: two\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('is a writable stream: a readable pipes into it', async () => {
    const { app } = await appWith(
      defineRoute({
        type: 'GET',
        path: '/piped',
        handler: (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          Readable.from(['al', 'pha']).pipe(res);
        },
      }),
    );
    expect(await (await app.request('/piped')).text()).toBe('alpha');
  });

  it("tells the handler with 'close' when the client goes away mid-stream", async () => {
    const closed = deferred();
    const { app } = await appWith(
      defineRoute({
        type: 'GET',
        path: '/forever',
        handler: (_req, res) => {
          res.on('close', () => closed.resolve());
          res.write('tick\n');
        },
      }),
    );
    const response = await app.request('/forever');
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await closed.promise;
  });

  it('drops and logs what comes after the answer instead of throwing at the handler', async () => {
    const after = deferred<unknown[]>();
    const { app, waitForLine } = await appWith(
      defineRoute({
        type: 'GET',
        path: '/twice',
        handler: (_req, res: HttpRouteResponse) => {
          res.json({ first: true });
          const results = [res.json({ second: true }), res.setHeader('x-late', '1')];
          after.resolve(results);
        },
      }),
    );
    const response = await app.request('/twice');
    expect(await response.json()).toEqual({ first: true });
    expect(response.headers.get('x-late')).toBeNull();
    await after.promise;
    await waitForLine((line) => line.write === 'json');
  });

  it('sendFile serves a file below its root, and refuses dotfiles, symlinks out, and dotfile symlinks', async () => {
    const { app } = await appWith(
      defineRoute<unknown>({
        type: 'GET',
        path: '/files/:name',
        handler: (req, res) =>
          res.sendFile(req.params.name!, { root: join(base, 'root', 'docs', '..') }),
      }),
      defineRoute({
        type: 'GET',
        path: '/absolute',
        handler: (_req, res) => res.sendFile(join(base, 'root/docs/guide.html')),
      }),
      defineRoute({
        type: 'GET',
        path: '/relative',
        handler: (_req, res) => res.sendFile('docs/guide.html'),
      }),
    );
    const absolute = await app.request('/absolute');
    expect(absolute.status).toBe(200);
    expect(absolute.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await absolute.text()).toBe('<h1>guide</h1>');
    for (const name of ['.env', 'leak.txt', 'env.txt', '..%2Foutside%2Fsecret.txt', 'none']) {
      const response = await app.request(`/files/${name}`);
      expect(response.status, name).toBe(404);
      const text = await response.text();
      expect(text).not.toContain('SECRET');
      expect(text).not.toContain('top secret');
    }
    // A relative path without a root is the handler's bug, as in Express.
    expect((await app.request('/relative')).status).toBe(500);
  });

  it('sendFile tells its callback about a missing file', async () => {
    const { app } = await appWith(
      defineRoute({
        type: 'GET',
        path: '/missing',
        handler: (_req, res) =>
          res.sendFile(join(base, 'root/none.txt'), (error) =>
            res.status(410).json({ missing: error !== undefined }),
          ),
      }),
    );
    const response = await app.request('/missing');
    expect(response.status).toBe(410);
    expect(await response.json()).toEqual({ missing: true });
  });
});
