import type { Route, RouteRequest } from '@parley/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { createPluginTestApp } from './create-plugin-test-app';

const echo: Route['handler'] = (req, res, runtime) =>
  res.json({
    method: req.method,
    path: req.path,
    params: req.params,
    query: req.query,
    agent: runtime.character.name,
  });

describe('plugin routes: methods, params and query', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    'serves %s at exactly its path',
    async (method) => {
      const { app } = await createPluginTestApp({
        plugins: [{ name: 'echo', routes: [{ type: method, path: '/things/:id', handler: echo }] }],
      });
      const response = await app.request('/things/42?x=1&x=2&y=%20z', { method });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        method,
        path: '/things/42',
        params: { id: '42' },
        query: { x: '2', y: ' z' },
        agent: 'Ada',
      });
      const otherMethod = method === 'GET' ? 'POST' : 'GET';
      expect((await app.request('/things/42', { method: otherMethod })).status).toBe(404);
      expect((await app.request('/things/42/more', { method })).status).toBe(404);
    },
  );

  it('decodes params and gives lower-case header names', async () => {
    let seen: RouteRequest | undefined;
    const { app } = await createPluginTestApp({
      plugins: [
        {
          name: 'p',
          routes: [
            {
              type: 'GET',
              path: '/files/:name',
              handler: (req, res) => ((seen = req), res.send('ok')),
            },
          ],
        },
      ],
    });
    await app.request('/files/a%20b', { headers: { 'X-Custom-Thing': 'Yes' } });
    expect(seen?.params).toEqual({ name: 'a b' });
    expect(seen?.headers['x-custom-thing']).toBe('Yes');
    expect(seen?.body).toBeUndefined();
    expect(seen?.rawBody).toEqual(new Uint8Array(0));
  });
});

describe('plugin routes: agent selection', () => {
  const ada = { name: 'Ada', id: '11111111-1111-4111-8111-111111111111' };
  const bob = { name: 'Bob', id: '22222222-2222-4222-8222-222222222222' };
  const cy = { name: 'Cy', id: '33333333-3333-4333-8333-333333333333' };
  const shared = {
    name: 'shared',
    routes: [{ type: 'GET' as const, path: '/who', handler: echo }],
  };
  const onlyBob = {
    name: 'bob-only',
    routes: [{ type: 'GET' as const, path: '/bob', handler: echo }],
  };

  async function app() {
    return (
      await createPluginTestApp({
        characters: [ada, bob, cy],
        plugins: (agent) =>
          agent.character.name === 'Bob'
            ? [shared, onlyBob]
            : agent.character.name === 'Ada'
              ? [shared]
              : [],
      })
    ).app;
  }
  const agentOf = async (response: Response) =>
    ((await response.json()) as { agent: string }).agent;

  it('uses the default agent when agentId is omitted, else the first agent with the route', async () => {
    const served = await app();
    expect(await agentOf(await served.request('/who'))).toBe('Ada');
    expect(await agentOf(await served.request('/bob'))).toBe('Bob');
  });

  it('picks the agent named by agentId, in any case', async () => {
    const served = await app();
    expect(await agentOf(await served.request(`/who?agentId=${bob.id}`))).toBe('Bob');
    expect(await agentOf(await served.request(`/who?agentId=${bob.id.toUpperCase()}`))).toBe('Bob');
  });

  it('answers 400 for a malformed agentId and 404 for an unknown agent or one without the route', async () => {
    const served = await app();
    const malformed = await served.request('/who?agentId=not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      success: false,
      error: { code: 'BAD_REQUEST' },
    });
    const unknown = await served.request('/who?agentId=44444444-4444-4444-8444-444444444444');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error: { code: 'NOT_FOUND', message: expect.stringContaining('Unknown agent') },
    });
    const lacking = await served.request(`/who?agentId=${cy.id}`);
    expect(lacking.status).toBe(404);
    expect(await lacking.json()).toMatchObject({
      error: { message: expect.stringContaining('Cy') },
    });
  });
});

describe('plugin routes: authentication', () => {
  const ok: Route['handler'] = (_req, res) => res.json({ ok: true });
  const plugin = {
    name: 'auth',
    routes: [
      { type: 'POST' as const, path: '/private', handler: ok },
      { type: 'POST' as const, path: '/open', handler: ok, public: true },
    ],
  };

  it('requires x-api-key on non-public routes when a token is set; public routes stay open', async () => {
    const { app } = await createPluginTestApp({ plugins: [plugin], authToken: 's3cret' });
    const missing = await app.request('/private', { method: 'POST' });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    const wrong = await app.request('/private', {
      method: 'POST',
      headers: { 'x-api-key': 's3cre' },
    });
    expect(wrong.status).toBe(401);
    const right = await app.request('/private', {
      method: 'POST',
      headers: { 'x-api-key': 's3cret' },
    });
    expect(right.status).toBe(200);
    expect((await app.request('/open', { method: 'POST' })).status).toBe(200);
  });

  it('refuses before agent selection, so an unknown agentId is still 401 without the key', async () => {
    const { app } = await createPluginTestApp({ plugins: [plugin], authToken: 's3cret' });
    const response = await app.request('/private?agentId=44444444-4444-4444-8444-444444444444', {
      method: 'POST',
    });
    expect(response.status).toBe(401);
  });

  it('leaves every route open when no token is set', async () => {
    const { app } = await createPluginTestApp({ plugins: [plugin] });
    expect((await app.request('/private', { method: 'POST' })).status).toBe(200);
  });
});
