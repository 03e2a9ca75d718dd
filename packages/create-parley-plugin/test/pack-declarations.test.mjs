import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The @parley packages a plugin is built against come from `pnpm pack` in this workspace, often right after
// `npx -y pnpm@10 start`, whose build skips type declarations (PARLEY_NO_DTS=1). Their `prepack`
// (scripts/ensure-declarations.mjs) must pack the declarations anyway. Shown on a workspace of one package,
// built the way the start script builds, with this repository's turbo and script.
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const ENSURE = join(ROOT, 'scripts', 'ensure-declarations.mjs');
const PNPM = ['-y', 'pnpm@10'];

// Writes dist/index.js, and dist/index.d.ts unless PARLEY_NO_DTS is set (as tsup.base.ts does).
const BUILD = `import { mkdirSync, writeFileSync } from 'node:fs';
mkdirSync('dist', { recursive: true });
writeFileSync('dist/index.js', 'export const one = 1;\\n');
if (!process.env.PARLEY_NO_DTS) writeFileSync('dist/index.d.ts', 'export declare const one: 1;\\n');
`;

let work;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'parley-pack-declarations-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** A workspace with one package `@fx/lib` (built by `build`, packed with the script as its prepack). */
async function workspace(name, { build = BUILD, turbo = true } = {}) {
  const root = join(work, name);
  const lib = join(root, 'packages', 'lib');
  await mkdir(join(root, 'node_modules'), { recursive: true });
  await mkdir(lib, { recursive: true });
  await writeFile(
    join(root, 'package.json'),
    JSON.stringify({ name: 'fx', private: true, packageManager: 'pnpm@10.34.9' }),
  );
  await writeFile(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n');
  await writeFile(
    join(root, 'turbo.json'),
    JSON.stringify({
      tasks: { build: { env: ['PARLEY_NO_DTS'], outputs: ['dist/**'] } },
    }),
  );
  if (turbo)
    await symlink(join(ROOT, 'node_modules', 'turbo'), join(root, 'node_modules', 'turbo'));
  await writeFile(
    join(lib, 'package.json'),
    JSON.stringify({
      name: '@fx/lib',
      version: '1.0.0',
      type: 'module',
      files: ['dist'],
      types: './dist/index.d.ts',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
      scripts: { build: 'node build.mjs', prepack: `node ${JSON.stringify(ENSURE)}` },
    }),
  );
  await writeFile(join(lib, 'build.mjs'), build);
  // The start script's build: JavaScript only.
  await run(process.execPath, ['build.mjs'], {
    cwd: lib,
    env: { ...process.env, PARLEY_NO_DTS: '1' },
  });
  expect(await readdir(join(lib, 'dist'))).toEqual(['index.js']);
  return { root, lib };
}

const pack = (cwd, destination) =>
  run('npx', [...PNPM, 'pack', '--pack-destination', destination], { cwd });

describe('packing after a build without declarations', () => {
  it('builds the declarations first, and the tarball holds them', async () => {
    const { root, lib } = await workspace('builds');
    await pack(lib, root);
    const listing = await run('tar', ['-tzf', join(root, 'fx-lib-1.0.0.tgz')]);
    expect(listing.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'package/dist/index.d.ts',
      'package/dist/index.js',
      'package/package.json',
    ]);
  });

  it('packs nothing, saying why, when the declarations cannot be built', async () => {
    const cases = [
      // A build that still writes none.
      await workspace('no-types', {
        build: BUILD.replace('if (!process.env.PARLEY_NO_DTS) ', '//'),
      }),
      // No turbo to build with.
      await workspace('no-turbo', { turbo: false }),
    ];
    for (const { root, lib } of cases) {
      const error = await pack(lib, root).catch((caught) => caught);
      expect(error.code).not.toBe(0);
      expect(error.stderr).toContain('@fx/lib: ');
      expect(error.stderr).toContain('./dist/index.d.ts');
      expect((await readdir(root)).filter((file) => file.endsWith('.tgz'))).toEqual([]);
    }
  });
});
