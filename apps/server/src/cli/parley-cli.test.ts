import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputOf, spawnParley } from '../test/parley-child';

let cwd: string;
beforeAll(async () => {
  // A folder of its own, so that no .env of the developer's reaches the CLI.
  cwd = await mkdtemp(join(tmpdir(), 'parley-cli-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

function start(args: string[], env: Record<string, string>) {
  return spawnParley(cwd, args, { LOG_LEVEL: '', LOG_FORMAT: 'pretty', ...env });
}

function run(args: string[], env: Record<string, string> = {}) {
  return outputOf(start(args, env));
}

const exampleSettings = {
  WEBHOOK_API_KEY: 'k',
  GITHUB_WEBHOOK_SECRET: 's',
  NOTIFICATION_CHANNEL_ID: '0c4d9a8e-3b2f-4e1a-9c7d-112233445566',
};

describe('parley test', () => {
  it('runs every example plugin’s suites against a live server and exits 0 when all pass', async () => {
    const { code, stdout } = await run(['test'], exampleSettings);
    expect(stdout).toContain('Eliza › github');
    expect(stdout).toContain('ok   github webhook › accepts a signed ping as configured');
    expect(stdout).toMatch(/13 passed, 0 failed \(13 tests, 5 plugins, 1 agent\)/);
    expect(code).toBe(0);
  });

  it('runs each agent’s own plugins, points SERVER_URL at the test server, and exits 1 on a failure', async () => {
    await writeFile(
      join(cwd, 'flaky-plugin.mjs'),
      `export default {
        name: 'flaky',
        tests: [{ name: 'flaky suite', tests: [
          { name: 'reaches the server under test', fn: async (runtime) => {
            const response = await fetch(runtime.getSetting('SERVER_URL') + '/api/server/health');
            if (response.status !== 200) throw new Error('health answered ' + response.status);
          } },
          { name: 'adds up', fn: () => { throw new Error('expected 2, got 3'); } },
        ] }],
      };`,
    );
    await writeFile(join(cwd, 'ada.json'), JSON.stringify({ name: 'Ada', plugins: ['flaky'] }));
    await writeFile(join(cwd, 'bob.json'), JSON.stringify({ name: 'Bob', plugins: ['webhook'] }));

    const { code, stdout } = await run(
      ['test', '--character', 'ada.json', '--character', 'bob.json'],
      {
        PLUGINS: 'webhook,./flaky-plugin.mjs',
        WEBHOOK_API_KEY: 'k',
        // A configured production address must not receive test traffic.
        SERVER_URL: 'http://127.0.0.1:9',
      },
    );

    expect(stdout).toContain('ok   flaky suite › reaches the server under test');
    expect(stdout).toContain('FAIL flaky suite › adds up');
    expect(stdout).toContain('FAIL Ada › flaky › flaky suite › adds up: expected 2, got 3');
    expect(stdout).toContain('Bob › webhook');
    expect(stdout).not.toContain('Ada › webhook');
    expect(stdout).not.toContain('Bob › flaky');
    expect(stdout).toMatch(/5 passed, 1 failed \(6 tests, 2 plugins, 2 agents\)/);
    expect(code).toBe(1);
  });

  it.each([
    [
      'an unknown PLUGINS item',
      { PLUGINS: 'nope' },
      'PLUGINS: plugin "nope" was not found. Tried: an example plugin',
    ],
    [
      '"none" mixed with a plugin',
      { PLUGINS: 'none,webhook' },
      'PLUGINS: "none" cannot be combined',
    ],
  ])('exits 1 with one line for %s', async (_label, env, message) => {
    const { code, stderr } = await run(['test'], env);
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining(`parley: ${message}`)]);
    expect(code).toBe(1);
  });

  it('exits 1 when a character lists a plugin that cannot be loaded', async () => {
    await writeFile(join(cwd, 'cy.json'), JSON.stringify({ name: 'Cy', plugins: ['nope'] }));
    const { code, stderr } = await run(['test', '--character', 'cy.json'], { PLUGINS: 'webhook' });
    expect(stderr).toContain(
      'character Cy: plugin "nope" was not found. Tried: a plugin loaded by PLUGINS (webhook)',
    );
    expect(code).toBe(1);
  });
});

describe('parley (serve)', () => {
  async function serveAndPost(env: Record<string, string>) {
    const child = start([], {
      PORT: '0',
      DATA_DIR: join(cwd, `data-${env.PLUGINS ?? 'default'}`),
      ...env,
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      const lines = createInterface({ input: child.stdout });
      let url: string | undefined;
      for await (const line of lines) {
        url = /Parley \S+ is listening on (\S+)/.exec(line)?.[1];
        if (url) break;
      }
      if (!url) throw new Error('the server did not start');
      const response = await fetch(`${url}/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event: 'ping', data: {} }),
      });
      return response.status;
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }

  it('loads the example plugins by default, so the reference routes answer', async () => {
    expect(await serveAndPost({})).toBe(200);
  });

  it('loads none with PLUGINS=none', async () => {
    expect(await serveAndPost({ PLUGINS: 'none' })).toBe(404);
  });

  it('accepts the leading -- that package-manager scripts pass through', async () => {
    await writeFile(join(cwd, 'dee.json'), JSON.stringify({ name: 'Dee' }));
    const child = start(['--', '--character', 'dee.json'], {
      PORT: '0',
      DATA_DIR: join(cwd, 'data-dee'),
      PLUGINS: 'none',
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      const agents: string[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        const agent = /^\s+agent (\S+)/.exec(line)?.[1];
        if (agent) agents.push(agent);
        else if (agents.length > 0) break;
      }
      expect(agents).toEqual(['Dee']);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});
