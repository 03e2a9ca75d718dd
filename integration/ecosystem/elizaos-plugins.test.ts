import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Published elizaOS plugins from npm, loaded by package name by the real app (`PLUGINS` and a character's
 * `plugins` list), their routes called over HTTP. Both packages are ESM-only (`exports` with only an `import`
 * condition), depend on `@elizaos/core`, and are installed as dev dependencies of this package; the app resolves
 * them from this folder, as it would from an operator's project.
 */

const CLI = fileURLToPath(new URL('../../apps/server/dist/main.js', import.meta.url));
const PROJECT = fileURLToPath(new URL('..', import.meta.url));
const WEBHOOK_SECRET = 'elizaos-webhook-secret';
// A syntactically valid token: @elizaos/plugin-github validates the format at init; nothing calls GitHub.
const GITHUB_TOKEN = 'ghp_parleyIntegrationToken0000000000000000';

let folder: string;
let server: ChildProcessWithoutNullStreams;
let exited: Promise<number | null>;
let url: string;
let output = '';

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'parley-elizaos-'));
  const character = join(folder, 'ada.json');
  await writeFile(
    character,
    JSON.stringify({
      name: 'Ada',
      // By package name in the character, as elizaOS characters list them.
      plugins: ['@elizaos/plugin-starter', '@elizaos/plugin-github'],
      settings: { GITHUB_TOKEN, GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET },
    }),
  );
  server = spawn(process.execPath, [CLI, '--character', character], {
    cwd: PROJECT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      DATA_DIR: join(folder, 'data'),
      // By package name in PLUGINS too; the character's list then narrows (and adds) per agent.
      PLUGINS: '@elizaos/plugin-github',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  exited = new Promise((resolve) => server.once('close', resolve));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for await (const line of createInterface({ input: server.stdout })) {
    output += `${line}\n`;
    const found = /Parley \S+ is listening on (http[^\s"]+)/.exec(line)?.[1];
    if (found) {
      url = found;
      break;
    }
  }
  // Keep reading, so that a full pipe never blocks the server.
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  if (!url) throw new Error(`the app did not start:\n${output}`);
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await exited;
  }
  if (folder) await rm(folder, { recursive: true, force: true });
});

function signed(event: string, payload: unknown) {
  // The plugin verifies the HMAC of JSON.stringify(req.body), so the body is sent in that exact form.
  const body = JSON.stringify(payload);
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`,
    },
    body,
  };
}

describe('@elizaos/plugin-starter (the elizaOS plugin template), loaded by package name', () => {
  it('answers GET /helloworld', async () => {
    const response = await fetch(`${url}/helloworld`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: 'Hello World!' });
  });

  it('answers GET /api/time', async () => {
    const response = await fetch(`${url}/api/time`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { timestamp: string; unix: number; timezone: string };
    expect(Math.abs(Date.parse(body.timestamp) / 1000 - body.unix)).toBeLessThan(1);
    expect(body.timezone).toEqual(expect.any(String));
  });
});

describe('@elizaos/plugin-github, loaded by package name', () => {
  it('starts: init keeps its configuration in the agent’s own settings, which GET /api/github/status reads', async () => {
    const response = await fetch(`${url}/api/github/status`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'active',
      plugin: 'plugin-github',
      authenticated: true,
      tokenType: 'pat',
    });
  });

  it('runs its GitHub service: GET /api/github/activity reads it through runtime.getService', async () => {
    const response = await fetch(`${url}/api/github/activity?limit=5`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'success',
      stats: { total: 0, success: 0, failed: 0 },
      activity: [],
    });
  });

  it('POST /api/github/webhook refuses an unsigned delivery with res.statusCode and res.end', async () => {
    const response = await fetch(`${url}/api/github/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'ping' },
      body: '{"zen":"unsigned"}',
    });
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('Webhook signature required');
  });

  it('POST /api/github/webhook accepts signed deliveries and runs the plugin’s event handlers', async () => {
    const ping = await fetch(
      `${url}/api/github/webhook`,
      signed('ping', { zen: 'Design for failure.', hook_id: 1 }),
    );
    expect(ping.status).toBe(200);
    expect(await ping.text()).toBe('OK');

    const issue = await fetch(
      `${url}/api/github/webhook`,
      signed('issues', {
        action: 'opened',
        issue: { number: 7, title: 'Crash on start', body: 'It crashes.' },
        repository: { full_name: 'octo/repo' },
        sender: { login: 'alice' },
      }),
    );
    // Its "github:issues" handler runs (runtime.emitEvent); the mention analysis asks runtime.useModel, which
    // the agent's model (the offline default) answers.
    expect(issue.status).toBe(200);
    expect(output).not.toContain('which Parley does not offer');
  });

  it('warns at start-up about the parts Parley does not use (its models), and none other', () => {
    expect(output).toMatch(/plugin declares models, which Parley does not use/);
    expect(output).not.toMatch(/plugin declares (actions|providers)/);
  });
});
