import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Module from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadParleyServer } from './load-parley-server';

/** Node's internal re-reading of NODE_PATH; not in the public types. */
const modules = Module as unknown as { _initPaths(): void };

describe('loadParleyServer', () => {
  // pnpm's bin shims put the workspace's hidden hoisting folder on NODE_PATH, which would let any folder
  // resolve @parley/server; a plugin author's machine has no such path.
  const nodePath = process.env.NODE_PATH;
  beforeAll(() => {
    delete process.env.NODE_PATH;
    modules._initPaths();
  });
  afterAll(() => {
    if (nodePath !== undefined) process.env.NODE_PATH = nodePath;
    modules._initPaths();
  });

  const made: string[] = [];
  afterEach(async () => {
    for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('tells the plugin author to install @parley/server when their project lacks it', async () => {
    // A folder outside the repository, so that no node_modules above it holds the server.
    const dir = await mkdtemp(join(tmpdir(), 'parley-no-server-'));
    made.push(dir);
    await writeFile(join(dir, 'package.json'), '{"name":"plugin-without-server"}');

    await expect(loadParleyServer(dir)).rejects.toThrow(
      'install @parley/server as a devDependency to run plugin tests',
    );
  });

  it('refuses a module that is not the Parley server', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parley-fake-server-'));
    made.push(dir);
    await writeFile(join(dir, 'package.json'), '{"name":"plugin"}');
    const fake = join(dir, 'node_modules', '@parley', 'server');
    await mkdir(fake, { recursive: true });
    await writeFile(join(fake, 'package.json'), '{"name":"@parley/server","main":"index.js"}');
    await writeFile(join(fake, 'index.js'), 'module.exports = { createServer: 1 };');

    await expect(loadParleyServer(dir)).rejects.toThrow('does not export createServer');
  });
});
