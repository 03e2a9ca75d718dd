import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import type { Plugin } from '@parley/plugin-sdk';
import { createLogger, createServer, type ParleyServer } from '@parley/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/start-server';

/** The root README's examples, taken from the README itself and run as written against a live server. */
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const run = promisify(execFile);

async function codeBlock(language: string, containing: string): Promise<string> {
  const text = await readFile(README, 'utf8');
  const block = [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))]
    .map((match) => match[1] ?? '')
    .find((code) => code.includes(containing));
  if (!block) throw new Error(`README has no ${language} block with ${containing}`);
  return block;
}

describe('README: for integrators', () => {
  let server: ParleyServer;
  let baseUrl: string;
  beforeAll(async () => {
    ({ server, url: baseUrl } = await startServer());
  });
  afterAll(() => server.stop());

  it('runs with node, prints each reply on its own line, and exits', async () => {
    const code = await codeBlock('js', "from '@parley/client'");
    // Beside this test, so that `@parley/client` resolves as it does in a project that depends on it.
    const file = fileURLToPath(new URL(`./.readme-${randomUUID()}.mjs`, import.meta.url));
    await writeFile(file, code.replaceAll('http://localhost:3000', baseUrl));
    try {
      const { stdout } = await run(process.execPath, [file], { timeout: 60_000 });
      const lines = stdout.split('\n');
      expect(lines.length).toBeGreaterThanOrEqual(4);
      expect(lines[0]).not.toBe('');
      expect(lines[1]).not.toBe('');
      expect(stdout).toContain('Ada: Hi there');
      expect(stdout).toMatch(/\nEliza: \S/);
      expect(stdout.endsWith('\n')).toBe(true);
    } finally {
      await rm(file, { force: true });
    }
  });
});

describe('README: for plugin authors', () => {
  let server: ParleyServer;
  let baseUrl: string;
  beforeAll(async () => {
    const code = await codeBlock('js', "from '@parley/plugin-sdk'");
    const file = fileURLToPath(new URL(`./.readme-plugin-${randomUUID()}.mjs`, import.meta.url));
    await writeFile(file, code);
    let plugin: Plugin;
    try {
      plugin = ((await import(/* @vite-ignore */ file)) as { default: Plugin }).default;
    } finally {
      await rm(file, { force: true });
    }
    server = createServer({
      port: 0,
      logger: createLogger('silent'),
      env: { DEPLOY_KEY: 'deploy-key' },
      authToken: 'server-token',
      plugins: [plugin],
      database: { kind: 'pglite', dataDir: 'memory' },
    });
    baseUrl = (await server.start()).url;
  });
  afterAll(() => server.stop());

  async function deploy(key?: string) {
    return fetch(`${baseUrl}/deploys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify({ service: 'api', channelId: randomUUID() }),
    });
  }

  it('works with SERVER_AUTH_TOKEN set: the route checks its own key', async () => {
    const response = await deploy('deploy-key');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, messageId: expect.any(String) });
    expect((await deploy()).status).toBe(401);
    expect((await deploy('server-token')).status).toBe(401);
  });
});
