import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/** The modules a fresh Node.js loads to import `specifier` from this package (a loader hook lists them). */
async function modulesLoadedBy(specifier: string): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-client-entry-'));
  const list = join(dir, 'loaded.txt');
  const hook = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) { appendFileSync(${JSON.stringify(list)}, url + '\\n'); return next(url, context); }`;
  const script = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
await import(${JSON.stringify(specifier)});`;
  try {
    await run(process.execPath, ['--input-type=module', '-e', script], { cwd: packageDir });
    return (await readFile(list, 'utf8')).split('\n').filter(Boolean);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const socketClient = (url: string) => /\/(socket\.io-client|engine\.io-client)\//.test(url);

// Plugins post over HTTP: the REST entry of @parley/client, not its root, which also loads socket.io's client
// (about 0.6 MB of every server's heap at rest, issue 42).
describe('the client entry of the messaging interface', () => {
  it('is @parley/client/rest in every source file of the package', async () => {
    const files = (await readdir(join(packageDir, 'src'), { recursive: true })).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    );
    const roots: string[] = [];
    for (const file of files) {
      const text = await readFile(join(packageDir, 'src', file), 'utf8');
      if (/from '@parley\/client'/.test(text)) roots.push(file);
    }
    expect(roots).toEqual([]);
  });

  it('loads no socket.io client, where the root entry does', async () => {
    const rest = await modulesLoadedBy('@parley/client/rest');
    expect(rest.some((url) => url.includes('/client/dist/'))).toBe(true);
    expect(rest.filter(socketClient)).toEqual([]);
    expect((await modulesLoadedBy('@parley/client')).some(socketClient)).toBe(true);
  });
});
