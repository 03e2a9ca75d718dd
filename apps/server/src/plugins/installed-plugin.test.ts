import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnParley, untilListening } from '../test/parley-child';
import { resolvePluginSpecifier } from './resolve-plugin-specifier';

/**
 * The plugin starter as a newcomer uses it, outside the repository: create a plugin against packed @parley
 * packages, `npm install`, `npm pack`, add `@parley/server` to it, then install the plugin's tarball beside
 * `@parley/server` in an app folder and start `parley` there with `PLUGINS=<package name>`.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CREATE = join(ROOT, 'packages/create-parley-plugin/bin/create.mjs');
const PACKAGES = ['core', 'client', 'plugin-sdk', 'tee', 'server'];
const NPM = ['--no-audit', '--no-fund', '--prefer-offline'];
// Packing five packages and three npm installs, on a busy machine.
const SLOW = 900_000;

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'parley-installed-plugin-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, ...NPM], { cwd, maxBuffer: 16 * 1024 * 1024 });

/** Starts the built `parley` in `cwd` and resolves with its URL once it listens. */
async function startParley(cwd: string, env: Record<string, string>) {
  const child = spawnParley(cwd, [], {
    PORT: '0',
    LOG_FORMAT: 'json',
    DATA_DIR: join(cwd, 'data'),
    ...env,
  });
  return { child, ...(await untilListening(child)) };
}

describe('a plugin made with create-parley-plugin, outside the repository', () => {
  it(
    'packs its build, takes @parley/server beside it, and is loaded by package name',
    async () => {
      const tarballs = join(work, 'tarballs');
      for (const name of PACKAGES) {
        await run('npx', ['-y', 'pnpm@10', 'pack', '--pack-destination', tarballs], {
          cwd: join(ROOT, 'packages', name),
        });
      }
      const plugin = join(work, 'deploy-notes');
      await run(process.execPath, [CREATE, plugin, '--tarballs', tarballs], { cwd: work });
      await npm(['install'], plugin);
      await npm(['test'], plugin);

      // `npm pack` builds (prepack) and packs what it built, though .gitignore lists dist/.
      const packed = JSON.parse((await npm(['pack', '--json'], plugin)).stdout) as {
        filename: string;
        files: { path: string }[];
      }[];
      const files = packed[0]!.files.map((file) => file.path).sort();
      expect(files).toEqual(['README.md', 'dist/index.d.ts', 'dist/index.js', 'package.json']);
      const pluginTarball = join(plugin, packed[0]!.filename);

      // Adding the server to the plugin (to run it there) used to fail with EOVERRIDE.
      await npm(['install', '-D', '../tarballs/parley-server-0.1.0.tgz'], plugin);
      const manifest = JSON.parse(await readFile(join(plugin, 'package.json'), 'utf8')) as {
        devDependencies: Record<string, string>;
        overrides: Record<string, string>;
      };
      expect(manifest.devDependencies['@parley/server']).toBe(manifest.overrides['@parley/server']);

      // An app that installs the server and the plugin's tarball; its overrides stand in for the registry.
      const app = join(work, 'app');
      await mkdir(app);
      await writeFile(
        join(app, 'package.json'),
        JSON.stringify({ name: 'app', private: true, overrides: manifest.overrides }),
      );
      await npm(['install', '../tarballs/parley-server-0.1.0.tgz', pluginTarball], app);
      // The plugin has no SDK of its own: it uses the one the server uses (a peer dependency).
      await expect(access(join(app, 'node_modules/deploy-notes/node_modules'))).rejects.toThrow();
      expect(resolvePluginSpecifier('deploy-notes', app)).toEqual({
        found: true,
        url: expect.stringMatching(/\/app\/node_modules\/deploy-notes\/dist\/index\.js$/),
      });

      const server = await startParley(app, { PLUGINS: 'deploy-notes' });
      try {
        const banner = server.lines.find((line) => typeof line.chat === 'string');
        expect(banner?.plugins).toEqual([
          { name: 'deploy-notes', routes: ['GET /deploy-notes/hello'] },
        ]);
        const response = await fetch(`${server.url}/deploy-notes/hello`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ success: true, message: 'Hello from Eliza' });
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    },
    SLOW,
  );
});
