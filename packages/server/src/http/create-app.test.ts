import { Writable } from 'node:stream';
import { ParleyError, agentMessageSchema } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { createHttpApp } from './create-app';
import { readJsonBody } from './read-body';

function captureLogs() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger('debug', stream) };
}

function appWith(authToken?: string) {
  const logs = captureLogs();
  const app = createHttpApp({ logger: logs.logger, authToken, bodyLimit: 1024 });
  app.get('/api/server/boom', () => {
    const error = new Error('database password is hunter2');
    throw error;
  });
  app.get('/api/server/missing', () => {
    throw new ParleyError('NOT_FOUND', 'Unknown channel', { details: { id: 'x' } });
  });
  app.post('/api/messaging/echo', async (c) =>
    c.json(await readJsonBody(c, agentMessageSchema, 'message')),
  );
  app.get('/api/server/ok', (c) => c.json({ success: true, data: 1 }));
  return { app, logs };
}

describe('the /api envelope and error handler', () => {
  it('turns an unexpected error into a bare 500 and logs the cause with the request id', async () => {
    const { app, logs } = appWith();
    const response = await app.request('/api/server/boom', {
      headers: { 'x-request-id': 'req-1' },
    });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      success: false,
      error: { code: 'INTERNAL', message: 'Internal server error' },
    });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('at ');
    const logged = logs.lines.join('');
    expect(logged).toContain('hunter2');
    expect(logged).toContain('"requestId":"req-1"');
  });

  it('maps a ParleyError to its status, code, message and details', async () => {
    const { app } = appWith();
    const response = await app.request('/api/server/missing');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'Unknown channel', details: { id: 'x' } },
    });
  });

  it('answers unknown paths with a NOT_FOUND envelope', async () => {
    const response = await appWith().app.request('/api/nothing-here');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });

  it('answers invalid JSON and schema failures with 400 and the problems', async () => {
    const { app } = appWith();
    const json = { 'content-type': 'application/json' };
    const bad = await app.request('/api/messaging/echo', {
      method: 'POST',
      body: '{nope',
      headers: json,
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { message: 'Request body must be valid JSON' },
    });

    const invalid = await app.request('/api/messaging/echo', {
      method: 'POST',
      body: JSON.stringify({ channel_id: 'not-a-uuid', author_id: 'a', content: 'hi' }),
      headers: json,
    });
    expect(invalid.status).toBe(400);
    const body = (await invalid.json()) as {
      error: { message: string; details: { issues: unknown[] } };
    };
    expect(body.error.message).toBe('Invalid message: channel_id must be a UUID');
    expect(body.error.details.issues).toContainEqual({
      path: 'channel_id',
      message: 'must be a UUID',
    });
  });

  it('answers bodies over the limit with 413', async () => {
    const response = await appWith().app.request('/api/messaging/echo', {
      method: 'POST',
      body: JSON.stringify({ content: 'x'.repeat(2000) }),
      headers: { 'content-length': '2014' },
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('answers chunked bodies over the limit with 413 too', async () => {
    const { app } = appWith();
    const chunks = [
      new TextEncoder().encode('{"content":"'),
      new TextEncoder().encode('x'.repeat(2000) + '"}'),
    ];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const response = await app.request('/api/messaging/echo', {
      method: 'POST',
      body,
      duplex: 'half',
    });
    expect(response.status).toBe(413);
  });

  it('requires x-api-key on /api when a token is set, compared exactly', async () => {
    const { app } = appWith('s3cret');
    expect((await app.request('/api/server/ok')).status).toBe(401);
    expect(
      (await app.request('/api/server/ok', { headers: { 'x-api-key': 's3cre' } })).status,
    ).toBe(401);
    const denied = await app.request('/api/server/ok', { headers: { 'x-api-key': 'S3CRET' } });
    expect(await denied.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    expect(
      (await app.request('/api/server/ok', { headers: { 'x-api-key': 's3cret' } })).status,
    ).toBe(200);
  });

  it('leaves other paths to plugin routes, which bring their own auth and limits', async () => {
    const { app } = appWith('s3cret');
    app.post('/api/custom', (c) => c.json({ open: true }));
    const response = await app.request('/api/custom', { method: 'POST', body: 'x'.repeat(2000) });
    expect(response.status).toBe(200);
  });

  it('gives every response a request id', async () => {
    const response = await appWith().app.request('/api/server/ok');
    expect(response.headers.get('x-request-id')).toMatch(/.+/);
  });
});
