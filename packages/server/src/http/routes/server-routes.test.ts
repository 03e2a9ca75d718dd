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
});
