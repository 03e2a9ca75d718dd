import { request as httpRequest } from 'node:http';
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
      data: { name: string }[];
    };
    expect(agents.data.map((agent) => agent.name)).toEqual(['Ada', 'Bob']);
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
    await expect(fetch(`${test.url}/api/server/health`)).rejects.toThrow();
    expect(stoppedEarly).toBe(false);
    release.resolve();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('finished');
    await stopped;
    await test.database.dispose();
  });

  it('closes a request still running at the shutdown deadline', async () => {
    const test = await startTestServer({ shutdownTimeoutMs: 100 });
    const entered = deferred();
    test.server.app.get('/stuck', async () => {
      entered.resolve();
      await new Promise(() => undefined);
      return new Response('never');
    });
    const outcome = new Promise<string>((resolve) => {
      const request = httpRequest(`${test.url}/stuck`, (response) =>
        resolve(`status ${response.statusCode}`),
      );
      request.on('error', (error) => resolve(`error ${(error as NodeJS.ErrnoException).code}`));
      request.end();
    });
    await entered.promise;
    await test.server.stop();
    expect(await outcome).toBe('error ECONNRESET');
    await test.database.dispose();
  });
});
