import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ReadinessProbe } from '../../health';
import { createHttpApp } from '../create-app';
import { serverRoutes } from './server-routes';

const logger = pino({ level: 'silent' });

function app(readiness: ReadinessProbe[] = []) {
  const http = createHttpApp({ logger, bodyLimit: 1024, authToken: 's3cret' });
  http.route('/', serverRoutes({ readiness }));
  http.get('/api/agents', (c) => c.json({ success: true, data: { agents: [] } }));
  return http;
}

describe('server routes', () => {
  it('answers liveness and readiness without the token, and nothing else', async () => {
    const http = app();
    expect((await http.request('/api/server/health')).status).toBe(200);
    expect(await (await http.request('/api/server/ready')).json()).toMatchObject({
      success: true,
      data: { status: 'ready' },
    });
    expect((await http.request('/api/agents')).status).toBe(401);
    expect((await http.request('/api/server/health/x')).status).toBe(401);
    const authorized = await http.request('/api/agents', { headers: { 'x-api-key': 's3cret' } });
    expect(authorized.status).toBe(200);
  });

  it('answers 503 naming the check that failed while something is not up', async () => {
    let databaseUp = false;
    const http = app([
      () => Promise.resolve({ name: 'database', ok: databaseUp, detail: 'unreachable' }),
      () => Promise.resolve({ name: 'tee', ok: true }),
    ]);
    const down = await http.request('/api/server/ready');
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({
      success: false,
      error: { code: 'UNAVAILABLE', message: 'Not ready (database: unreachable)' },
    });
    databaseUp = true;
    expect((await http.request('/api/server/ready')).status).toBe(200);
  });

  it('with the token set, a 503 without it says only not ready; with it, the checks, redacted', async () => {
    const http = createHttpApp({ logger, bodyLimit: 1024, authToken: 's3cret' });
    const detail = 'login refused: Authorization: Bearer tok-4d5e6f7a8b (API_TOKEN=tok-4d5e6f7a8b)';
    http.route(
      '/',
      serverRoutes({
        authToken: 's3cret',
        readiness: [() => Promise.resolve({ name: 'mcp', ok: false, detail })],
      }),
    );
    const [open, wrong, authorized] = await Promise.all([
      http.request('/api/server/ready'),
      http.request('/api/server/ready', { headers: { 'x-api-key': 'wrong' } }),
      http.request('/api/server/ready', { headers: { 'x-api-key': 's3cret' } }),
    ]);
    for (const answer of [open, wrong]) {
      expect(answer.status).toBe(503);
      expect(await answer.json()).toEqual({
        success: false,
        error: { code: 'UNAVAILABLE', message: 'Not ready' },
      });
    }
    expect(authorized.status).toBe(503);
    const text = await authorized.text();
    expect(text).not.toContain('tok-4d5e6f7a8b');
    expect(JSON.parse(text)).toMatchObject({
      error: {
        message:
          'Not ready (mcp: login refused: Authorization: Bearer [redacted] (API_TOKEN=[redacted]))',
      },
    });
  });
});
