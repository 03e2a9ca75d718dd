import type { Route } from '@parley/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { createPluginTestApp } from '../create-plugin-test-app';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

async function appWith(...routes: Route[]) {
  return createPluginTestApp({ plugins: [{ name: 'behaviour', routes }], routeTimeoutMs: 5_000 });
}

describe('plugin handler outcomes', () => {
  it.each([
    [
      'throws',
      () => {
        throw new Error('db password is hunter2');
      },
    ],
    ['rejects', () => Promise.reject(new Error('db password is hunter2'))],
  ])(
    'a handler that %s gives 500 without internal detail, and the cause is logged with the request id',
    async (_, handler) => {
      const { app, lines } = await appWith({ type: 'POST', path: '/boom', handler });
      const response = await app.request('/boom', { method: 'POST' });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ success: false, error: 'Internal server error' });
      expect(text).not.toContain('hunter2');
      const logged = lines.find((line) => line.msg === 'plugin route failed');
      expect(logged).toMatchObject({
        plugin: 'behaviour',
        err: { message: 'db password is hunter2' },
      });
      expect(logged?.requestId).toEqual(expect.any(String));
    },
  );

  it('gives 504 after the route timeout and drops what the handler writes later', async () => {
    const release = deferred();
    const lateWrite = deferred();
    const { app, lines } = await appWith({
      type: 'GET',
      path: '/slow',
      timeoutMs: 20,
      handler: async (_req, res) => {
        await release.promise;
        res.status(201).json({ late: true });
        res.send('again');
        lateWrite.resolve();
      },
    });
    const response = await app.request('/slow');
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ success: false, error: 'Route timed out' });
    release.resolve();
    await lateWrite.promise;
    expect(lines.filter((line) => line.msg?.includes('ignored')).map((line) => line.write)).toEqual(
      ['status', 'json', 'send'],
    );
  });

  it('answers as soon as the handler sends, and logs a failure that comes after', async () => {
    const finish = deferred();
    const { app, waitForLine } = await appWith({
      type: 'POST',
      path: '/ack',
      handler: async (_req, res) => {
        res.status(202).setHeader('x-kind', 'ack').json({ accepted: true });
        await finish.promise;
        throw new Error('background work failed');
      },
    });
    const response = await app.request('/ack', { method: 'POST' });
    expect(response.status).toBe(202);
    expect(response.headers.get('x-kind')).toBe('ack');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ accepted: true });
    finish.resolve();
    const logged = await waitForLine(
      (line) => line.msg === 'plugin route failed after its response',
    );
    expect(logged).toMatchObject({ err: { message: 'background work failed' } });
  });

  it('gives 204 when the handler sends nothing, and its status with an empty body when it set one', async () => {
    const { app } = await appWith(
      { type: 'DELETE', path: '/quiet', handler: () => undefined },
      { type: 'DELETE', path: '/accepted', handler: (_req, res) => void res.status(202) },
    );
    const quiet = await app.request('/quiet', { method: 'DELETE' });
    expect(quiet.status).toBe(204);
    expect(await quiet.text()).toBe('');
    const accepted = await app.request('/accepted', { method: 'DELETE' });
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe('');
  });

  it('sends text as text/plain, bytes as octet-stream, and keeps a content type the handler set', async () => {
    const { app } = await appWith(
      { type: 'GET', path: '/text', handler: (_req, res) => res.send('<b>hi</b>') },
      { type: 'GET', path: '/bytes', handler: (_req, res) => res.send(new Uint8Array([1, 2])) },
      {
        type: 'GET',
        path: '/xml',
        handler: (_req, res) => res.setHeader('Content-Type', 'application/xml').send('<a/>'),
      },
    );
    const text = await app.request('/text');
    expect(text.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(await text.text()).toBe('<b>hi</b>');
    const bytes = await app.request('/bytes');
    expect(bytes.headers.get('content-type')).toBe('application/octet-stream');
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(new Uint8Array([1, 2]));
    expect((await app.request('/xml')).headers.get('content-type')).toBe('application/xml');
  });

  it('treats an invalid status code as a handler failure', async () => {
    const { app } = await appWith({
      type: 'GET',
      path: '/bad',
      handler: (_req, res) => res.status(99).json({}),
    });
    expect((await app.request('/bad')).status).toBe(500);
  });
});
