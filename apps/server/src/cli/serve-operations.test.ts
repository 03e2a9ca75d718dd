import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnParley, untilListening } from '../test/parley-child';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-serve-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

/** Starts `parley` with JSON logs and resolves once it listens, with its URL and the lines read so far. */
async function startServer(env: Record<string, string>) {
  const child = spawnParley(cwd, [], {
    PORT: '0',
    PLUGINS: 'none',
    LOG_FORMAT: 'json',
    DATA_DIR: join(cwd, `data-${Math.random().toString(36).slice(2)}`),
    ...env,
  });
  return { child, ...(await untilListening(child)) };
}

describe('a running server', () => {
  it('logs JSON lines only, the banner as one structured line, and one line per request', async () => {
    const server = await startServer({});
    try {
      const banner = server.lines.find((line) => typeof line.chat === 'string');
      expect(banner).toMatchObject({
        msg: expect.stringMatching(
          /^Parley \S+ is listening on http:\/\/127\.0\.0\.1:\d+$/,
        ) as string,
        chat: `${server.url}/`,
        docs: `${server.url}/api/docs`,
        agents: [{ name: 'Eliza' }],
        plugins: [],
      });
      const logged = new Promise<Record<string, unknown>>((resolve) =>
        server.reader.on('line', (line) => {
          const record = JSON.parse(line) as Record<string, unknown>;
          if (record.path === '/api/agents') resolve(record);
        }),
      );
      const response = await fetch(`${server.url}/api/agents?page=2`, {
        headers: { 'x-request-id': 'trace-me' },
      });
      expect(response.status).toBe(200);
      expect(await logged).toMatchObject({
        level: 30,
        method: 'GET',
        path: '/api/agents',
        status: 200,
        requestId: 'trace-me',
        ms: expect.any(Number) as number,
      });
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  it('with SERVER_AUTH_TOKEN: health and readiness stay open, metrics and the API need the key', async () => {
    const server = await startServer({ SERVER_AUTH_TOKEN: 's3cret' });
    try {
      const health = await fetch(`${server.url}/api/server/health`);
      expect(health.status).toBe(200);
      expect((await fetch(`${server.url}/api/server/ready`)).status).toBe(200);
      expect((await fetch(`${server.url}/api/agents`)).status).toBe(401);
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      const metrics = await fetch(`${server.url}/metrics`, { headers: { 'x-api-key': 's3cret' } });
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toContain('parley_sockets 0');
      expect(text).toContain('parley_process_cpu_seconds_total');
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  it('keeps answering and still stops on SIGTERM after its stdout pipe closes (parley | head -2)', async () => {
    const server = await startServer({ REQUEST_LOG_LEVEL: 'info' });
    // The reader goes away, as `head` does after two lines: every later log write fails with EPIPE.
    server.reader.close();
    server.child.stdout.destroy();
    for (let index = 0; index < 20; index += 1) {
      const response = await fetch(`${server.url}/api/server/health`);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
