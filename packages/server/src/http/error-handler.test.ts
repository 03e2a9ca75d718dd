import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { ParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { createHttpApp } from './create-app';

function captureLogs() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as { level: number; msg: string });
      }
      done();
    },
  });
  return { lines, logger: createLogger('debug', stream) };
}

describe('errors of requests whose client went away', () => {
  it('are logged at debug, not as internal errors with a stack', async () => {
    const logs = captureLogs();
    const app = createHttpApp({ logger: logs.logger, bodyLimit: 1024 });
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    let failed!: () => void;
    const handlerFailed = new Promise<void>((resolve) => (failed = resolve));
    app.get('/api/server/slow', async (c) => {
      const signal = c.req.raw.signal;
      started();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      queueMicrotask(failed);
      // What a cancelled model call or query throws once the request's signal fires.
      throw new Error('This operation was aborted');
    });
    app.get('/api/server/boom', () => {
      throw new Error('real failure');
    });
    const listener = getRequestListener(app.fetch);
    const server = createServer((request, response) => void listener(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const aborted = httpRequest({ port, host: '127.0.0.1', path: '/api/server/slow' });
      aborted.on('error', () => undefined);
      aborted.end();
      await handlerStarted;
      aborted.destroy();
      await handlerFailed;
      // A real failure of a request whose client is still there is still an error.
      const response = await fetch(`http://127.0.0.1:${port}/api/server/boom`);
      expect(response.status).toBe(500);
      await expect
        .poll(() => logs.lines.some((line) => line.msg === 'real failure' || line.level === 50))
        .toBe(true);
      const errors = logs.lines.filter((line) => line.level >= 50);
      expect(errors).toHaveLength(1);
      expect(logs.lines.some((line) => line.msg === 'request aborted by the client')).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('keep their 4xx meaning and log level', async () => {
    const logs = captureLogs();
    const app = createHttpApp({ logger: logs.logger, bodyLimit: 1024 });
    app.get('/api/server/bad', () => {
      throw new ParleyError('BAD_REQUEST', 'nope');
    });
    const response = await app.request('/api/server/bad');
    expect(response.status).toBe(400);
    expect(logs.lines.filter((line) => line.level >= 40)).toEqual([]);
  });
});
