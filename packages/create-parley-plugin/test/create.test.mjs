import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFakeOpenAIServer, toSseEvents, toToolCallEvents } from '@parley/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CREATE = fileURLToPath(new URL('../bin/create.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PNPM = ['-y', 'pnpm@10'];

let work;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'create-parley-plugin-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** The commands of the first `sh` block of a README, comments dropped. */
async function documentedCommands(readme) {
  const block = /```sh\n([\s\S]*?)```/.exec(await readFile(readme, 'utf8'))?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

/** Runs a documented `npx -y pnpm@10 …` command in `cwd`, as a shell would. */
function runCommand(command, cwd, env = {}) {
  return run('sh', ['-c', command], { cwd, env: { ...process.env, ...env } });
}

describe('create-parley-plugin from a clone of Parley', () => {
  // One project for every case: created, installed, tested and built once.
  let folder;
  let commands;
  beforeAll(async () => {
    folder = join(work, 'deploy-notes');
    const created = await run(process.execPath, [CREATE, folder], { cwd: work });
    expect(created.stdout).toContain(
      `Created deploy-notes in deploy-notes, linked to the Parley clone`,
    );
    commands = await documentedCommands(join(folder, 'README.md'));
  }, 240_000);

  it('links the clone, with no tarball and no registry package of Parley, and says the three commands', async () => {
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'deploy-notes', type: 'module', files: ['dist'] });
    expect(manifest.peerDependencies).toEqual({ '@parley/plugin-sdk': '^0.1.0' });
    expect(manifest.devDependencies['@parley/plugin-sdk']).toMatch(/^link:.*packages\/plugin-sdk$/);
    expect(manifest.devDependencies['@parley/server']).toMatch(/^link:.*packages\/server$/);
    expect(manifest.overrides).toBeUndefined();
    expect(commands).toEqual([
      'npx -y pnpm@10 install',
      'npx -y pnpm@10 test',
      'npx -y pnpm@10 start',
    ]);
  });

  it('installs, passes its tests through the SDK harness and builds, with the commands as written', async () => {
    await runCommand(commands[0], folder);
    const tested = await runCommand(commands[1], folder);
    expect(tested.stdout).toMatch(/3 passed/);
    await runCommand('npx -y pnpm@10 run build', folder);
    const built = await import(join(folder, 'dist', 'index.js'));
    expect(built.default.actions.map((action) => action.name)).toEqual(['SAY_HELLO']);
    expect(built.default.routes.map((route) => route.path)).toEqual(['/deploy-notes/hello']);
    // The plugin's types come from the clone's SDK: its declarations were built for it.
    expect(await readFile(join(folder, 'dist', 'index.d.ts'), 'utf8')).toContain('sayHelloAction');
  });

  it('starts the clone’s server with the plugin: a model calls the action and its result reaches the channel', async () => {
    const requests = [];
    const model = await startFakeOpenAIServer({
      onRequest: ({ headers, body }) => requests.push({ headers, body }),
      // First a call of SAY_HELLO; once its result is in the conversation, an answer that quotes it.
      events: (body) => {
        const toolTurn = body.messages.findLast((message) => message.role === 'tool');
        return toolTurn
          ? toSseEvents(`Done. ${String(toolTurn.content)}`, 16)
          : toToolCallEvents([
              { id: 'call_1', name: 'SAY_HELLO', arguments: JSON.stringify({ name: 'Grace' }) },
            ]);
      },
    });
    // The third command as written; the server was built by this repository's build, so not again here.
    const server = spawn('sh', ['-c', commands[2]], {
      cwd: folder,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PARLEY_SKIP_BUILD: '1',
        PORT: '0',
        LOG_FORMAT: 'json',
        MODEL_PROVIDER: 'openai',
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: 'sk-plugin-test',
        MODEL: 'fake-model',
        HELLO_GREETING: 'Good evening',
      },
    });
    const exited = new Promise((resolve) => server.once('close', resolve));
    try {
      const url = await new Promise((resolve, reject) => {
        createInterface({ input: server.stdout }).on('line', (line) => {
          try {
            const record = JSON.parse(line);
            if (typeof record.chat === 'string') resolve(record.url);
          } catch {
            // pnpm's and tsc's own lines
          }
        });
        void exited.then(() => reject(new Error('the server ended before listening')));
      });
      const channelId = crypto.randomUUID();
      const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'say hello to Grace', entityId: 'user-1', mode: 'sync' }),
      });
      expect(response.status).toBe(200);
      const { agentResponse } = await response.json();
      expect(agentResponse.actions).toContain('SAY_HELLO');
      expect(agentResponse.toolCalls).toEqual([
        expect.objectContaining({
          toolName: 'SAY_HELLO',
          input: { name: 'Grace' },
          output: expect.objectContaining({
            text: 'Good evening, Grace! (Eliza, through deploy-notes)',
          }),
        }),
      ]);
      // The model was offered the action as a tool, and the reply that quotes its result is in the channel.
      expect(requests[0].body.tools.map((tool) => tool.function.name)).toContain('SAY_HELLO');
      expect(requests[0].headers.authorization).toBe('Bearer sk-plugin-test');
      const history = await (
        await fetch(`${url}/api/messaging/channels/${channelId}/messages`)
      ).json();
      const said = JSON.stringify(history);
      expect(said).toContain('Done.');
      expect(said).toContain('Good evening, Grace! (Eliza, through deploy-notes)');
      // The plugin's route is served too.
      expect(await (await fetch(`${url}/deploy-notes/hello`)).json()).toEqual({
        success: true,
        message: 'Hello from Eliza',
      });
    } finally {
      process.kill(-server.pid, 'SIGTERM');
      await exited;
      await model.close();
    }
  });
});

describe('create-parley-plugin with packed builds', () => {
  it('writes a plugin that installs from the tarballs, passes its test and builds, in an empty folder', async () => {
    const tarballs = join(work, 'tarballs');
    // The SDK, the server its harness runs, and the @parley packages they depend on, packed as published.
    for (const name of ['core', 'client', 'tee', 'plugin-sdk', 'server']) {
      await run('npx', [...PNPM, 'pack', '--pack-destination', tarballs], {
        cwd: join(ROOT, 'packages', name),
      });
    }
    const folder = join(work, 'packed-notes');
    const created = await run(process.execPath, [CREATE, folder, '--tarballs', tarballs], {
      cwd: work,
    });
    expect(created.stdout).toContain('Created packed-notes');
    expect(created.stdout).toContain('npm install');
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'packed-notes', type: 'module', files: ['dist'] });
    // The SDK is the server's (a peer); the tarball is for building and testing here, by a relative path.
    expect(manifest.peerDependencies).toEqual({ '@parley/plugin-sdk': '^0.1.0' });
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.scripts.start).toBeUndefined();
    expect(manifest.devDependencies['@parley/plugin-sdk']).toBe(
      'file:../tarballs/parley-plugin-sdk-0.1.0.tgz',
    );
    expect(manifest.devDependencies['@parley/server']).toBe(
      'file:../tarballs/parley-server-0.1.0.tgz',
    );
    expect(manifest.overrides['@parley/core']).toBe('file:../tarballs/parley-core-0.1.0.tgz');

    // Offline-friendly: the @parley packages come from the tarballs, the rest from the local store when there.
    await run('npx', [...PNPM, 'install', '--prefer-offline', '--ignore-workspace'], {
      cwd: folder,
    });
    const tested = await run('npx', [...PNPM, 'test'], { cwd: folder });
    expect(tested.stdout).toMatch(/3 passed/);
    await run('npx', [...PNPM, 'run', 'build'], { cwd: folder });

    // What it packs is what it built (dist/ is in .gitignore, `files` brings it back).
    await run('npx', [...PNPM, 'pack', '--pack-destination', work], { cwd: folder });
    const listing = await run('tar', ['-tzf', join(work, 'packed-notes-0.1.0.tgz')]);
    expect(listing.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'package/README.md',
      'package/dist/index.d.ts',
      'package/dist/index.js',
      'package/package.json',
    ]);
  });

  it('refuses a folder that is not empty, and --tarballs with --registry', async () => {
    const error = await run(process.execPath, [CREATE, ROOT]).catch((caught) => caught);
    expect(error.code).toBe(1);
    expect(error.stderr).toContain('is not empty');
    const both = await run(process.execPath, [
      CREATE,
      join(work, 'both'),
      '--tarballs',
      work,
      '--registry',
    ]).catch((caught) => caught);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('exclude each other');
  });
});
