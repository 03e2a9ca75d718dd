import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
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

describe('create-parley-plugin', () => {
  it('writes a plugin that installs from the packed SDK, passes its test and builds, in an empty folder', async () => {
    const tarballs = join(work, 'tarballs');
    // The SDK and the @parley packages it depends on, packed as they would be published.
    for (const name of ['core', 'client', 'plugin-sdk']) {
      await run('npx', [...PNPM, 'pack', '--pack-destination', tarballs], {
        cwd: join(ROOT, 'packages', name),
      });
    }
    const folder = join(work, 'deploy-notes');
    const created = await run(process.execPath, [CREATE, folder, '--tarballs', tarballs], {
      cwd: work,
    });
    expect(created.stdout).toContain('Created deploy-notes');
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: 'deploy-notes', type: 'module', files: ['dist'] });
    // The SDK is the server's (a peer); the tarball is for building and testing here, by a relative path.
    expect(manifest.peerDependencies).toEqual({ '@parley/plugin-sdk': '^0.1.0' });
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.devDependencies['@parley/plugin-sdk']).toBe(
      'file:../tarballs/parley-plugin-sdk-0.1.0.tgz',
    );
    expect(manifest.overrides['@parley/core']).toBe('file:../tarballs/parley-core-0.1.0.tgz');

    // Offline-friendly: the @parley packages come from the tarballs, the rest from the local store when there.
    await run('npx', [...PNPM, 'install', '--prefer-offline', '--ignore-workspace'], {
      cwd: folder,
    });
    const tested = await run('npx', [...PNPM, 'test'], { cwd: folder });
    expect(tested.stdout).toMatch(/2 passed/);
    await run('npx', [...PNPM, 'run', 'build'], { cwd: folder });
    const built = await import(join(folder, 'dist', 'index.js'));
    expect(built.default.routes.map((route) => route.path)).toEqual(['/deploy-notes/hello']);

    // What it packs is what it built (dist/ is in .gitignore, `files` brings it back).
    await run('npx', [...PNPM, 'pack', '--pack-destination', work], { cwd: folder });
    const listing = await run('tar', ['-tzf', join(work, 'deploy-notes-0.1.0.tgz')]);
    expect(listing.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'package/README.md',
      'package/dist/index.d.ts',
      'package/dist/index.js',
      'package/package.json',
    ]);
  });

  it('refuses a folder that is not empty', async () => {
    const error = await run(process.execPath, [CREATE, ROOT]).catch((caught) => caught);
    expect(error.code).toBe(1);
    expect(error.stderr).toContain('is not empty');
  });
});
