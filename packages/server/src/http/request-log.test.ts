import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from './create-app';
import type { RequestLogEntry } from './request-log';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level: 'trace' }, stream) };
}

describe('request log', () => {
  it('logs one line per request with method, path, status, ms and request id', async () => {
    const { lines, logger } = capture();
    const entries: RequestLogEntry[] = [];
    const app = createHttpApp({
      logger,
      bodyLimit: 1024,
      onRequest: (entry) => entries.push(entry),
    });
    app.get('/api/agents/:agentId', (c) => c.json({ ok: true }));

    const response = await app.request('/api/agents/42?secret=x', {
      headers: { 'x-request-id': 'req-1' },
    });
    await app.request('/nowhere');

    expect(response.status).toBe(200);
    const requests = lines.filter((line) => 'status' in line);
    expect(requests).toEqual([
      expect.objectContaining({
        level: 30,
        method: 'GET',
        path: '/api/agents/42',
        status: 200,
        requestId: 'req-1',
        ms: expect.any(Number) as number,
      }),
      expect.objectContaining({ method: 'GET', path: '/nowhere', status: 404 }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('secret=x');
    expect(entries.map((entry) => entry.route)).toEqual(['/api/agents/:agentId', 'unmatched']);
  });

  it('logs at the configured level, and not at all when silent', async () => {
    const debug = capture();
    const app = createHttpApp({ logger: debug.logger, bodyLimit: 1024, requestLogLevel: 'debug' });
    await app.request('/x');
    expect(debug.lines.filter((line) => 'status' in line).map((line) => line.level)).toEqual([20]);

    const silent = capture();
    const quiet = createHttpApp({
      logger: silent.logger,
      bodyLimit: 1024,
      requestLogLevel: 'silent',
    });
    await quiet.request('/x');
    expect(silent.lines).toEqual([]);
  });

  it('logs requests that fail, with the status the error handler chose', async () => {
    const { lines, logger } = capture();
    const app = createHttpApp({ logger, bodyLimit: 1024 });
    app.get('/api/agents/boom', () => {
      throw new Error('kaput');
    });
    const response = await app.request('/api/agents/boom');
    expect(response.status).toBe(500);
    expect(lines.find((line) => 'status' in line)).toMatchObject({ status: 500 });
  });
});
