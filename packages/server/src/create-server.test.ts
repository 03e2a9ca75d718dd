import { Agent, request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { copyPGliteTemplate } from '../test/databases';
import { deferred } from '../test/scripted-model';
import { connectClient } from '../test/socket-client';
import { startTestServer } from '../test/test-server';
import { createServer } from './create-server';
import { createLogger } from './logger';

describe('createServer', () => {
  it('answers health and lists the agents over real HTTP', async () => {
    await using test = await startTestServer({ characters: [{ name: 'Ada' }, { name: 'Bob' }] });
    const health = await fetch(`${test.url}/api/server/health`);
    expect(await health.json()).toEqual({ success: true, data: { status: 'ok' } });
    const agents = (await (await fetch(`${test.url}/api/agents`)).json()) as {
      data: { agents: { name: string }[] };
    };
    expect(agents.data.agents.map((agent) => agent.name)).toEqual(['Ada', 'Bob']);
  });

  it('accepts socket.io clients over polling and over websocket on the same port', async () => {
    await using test = await startTestServer();
    for (const transport of ['polling', 'websocket'] as const) {
      const socket = await connectClient(test.url, transport);
      expect(socket.io.engine.transport.name).toBe(transport);
      socket.disconnect();
    }
  });

  it('stops a start-up with a plugin error before binding the port', async () => {
    const database = await copyPGliteTemplate();
    const server = createServer({
      port: 0,
      logger: createLogger('silent'),
      env: {},
      database: database.location,
      plugins: [
        {
          name: 'broken',
          routes: [{ type: 'GET', path: '/api/messaging/x', handler: () => undefined }],
        },
      ],
    });
    await expect(server.start()).rejects.toThrow(/broken/);
    await server.stop();
    await database.dispose();
  });

  it('lets a request in flight finish on stop, and refuses new connections', async () => {
    const test = await startTestServer();
    const release = deferred();
    const entered = deferred();
    test.server.app.get('/slow', async (c) => {
      entered.resolve();
      await release.promise;
      return c.text('finished');
    });
    const inFlight = fetch(`${test.url}/slow`);
    await entered.promise;
    const stopped = test.server.stop();
    let stoppedEarly = false;
    void stopped.then(() => (stoppedEarly = true));
    // During the drain grace it still answers, telling clients to go and readiness to fail...
    const ready = await fetch(`${test.url}/api/server/ready`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('connection')).toBe('close');
    // ...then it refuses new connections while the request in flight goes on.
    await expect
      .poll(() =>
        fetch(`${test.url}/api/server/health`).then(
          () => 'served',
          () => 'refused',
        ),
      )
      .toBe('refused');
    expect(stoppedEarly).toBe(false);
    release.resolve();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('finished');
    await stopped;
    await test.database.dispose();
  });

  it('answers a request still waiting at the shutdown deadline 503, instead of resetting it', async () => {
    const test = await startTestServer({ shutdownTimeoutMs: 100 });
    const entered = deferred();
    test.server.app.get('/stuck', async () => {
      entered.resolve();
      await new Promise(() => undefined);
      return new Response('never');
    });
    const outcome = new Promise<string>((resolve) => {
      const request = httpRequest(`${test.url}/stuck`, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () =>
          resolve(`status ${response.statusCode} ${response.headers['retry-after']} ${body}`),
        );
      });
      request.on('error', (error) => resolve(`error ${(error as NodeJS.ErrnoException).code}`));
      request.end();
    });
    await entered.promise;
    await test.server.stop();
    expect(await outcome).toBe(
      'status 503 1 {"success":false,"error":{"code":"UNAVAILABLE","message":"The server is stopping; retry later"}}',
    );
    await test.database.dispose();
  });

  it('drains under load: every request the server took is answered, none is reset', async () => {
    const test = await startTestServer({ drainGraceMs: 300 });
    let received = 0;
    test.server.app.get('/work', async (c) => {
      received += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return c.text('done');
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    let answered = 0;
    const get = () =>
      new Promise<boolean>((resolve) => {
        const request = httpRequest(`${test.url}/work`, { agent }, (response) => {
          response.resume();
          response.on('end', () => resolve(true));
          response.on('error', () => resolve(false));
        });
        request.on('error', () => resolve(false));
        request.end();
      });
    const loops = Array.from({ length: 64 }, async () => {
      while (await get()) answered += 1;
    });
    await expect.poll(() => answered, { timeout: 20_000 }).toBeGreaterThan(200);
    await test.server.stop();
    await Promise.all(loops);
    agent.destroy();
    // A connection the server never read from may be refused or reset; a request it began is always answered.
    expect(answered).toBe(received);
    await test.database.dispose();
  });
});
