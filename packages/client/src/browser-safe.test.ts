import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dist = join(import.meta.dirname, '..', 'dist');

/** Every built module, so that the check covers what integrators really import. */
async function builtModules(): Promise<{ file: string; code: string }[]> {
  const files = (await readdir(dist, { recursive: true })).filter((file) => file.endsWith('.js'));
  return Promise.all(
    files.map(async (file) => ({ file, code: await readFile(join(dist, file), 'utf8') })),
  );
}

describe('the built package', () => {
  it('is browser-safe: no Node built-ins, Buffer or process anywhere in dist', async () => {
    const modules = await builtModules();
    // Fails on a missing build instead of passing on nothing: run `npx tsup` first.
    expect(modules.map(({ file }) => file)).toEqual(
      expect.arrayContaining(['index.js', 'rest/index.js', 'sse/index.js', 'socket/index.js']),
    );
    const offenders = modules.flatMap(({ file, code }) =>
      [
        /from\s*["']node:/,
        /import\(\s*["']node:/,
        /\brequire\(/,
        /\bBuffer\b/,
        /\bprocess\./,
        /from\s*["'](fs|path|http|https|net|stream|crypto|events|util)["']/,
      ]
        .filter((pattern) => pattern.test(code))
        .map((pattern) => `${file}: ${String(pattern)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps socket.io out of the REST and SSE entries', async () => {
    const modules = new Map((await builtModules()).map(({ file, code }) => [file, code]));
    const reachable = (file: string, seen = new Set<string>()): Set<string> => {
      if (seen.has(file)) return seen;
      seen.add(file);
      const code = modules.get(file) ?? '';
      for (const [, chunk] of code.matchAll(/from\s*["']\.{1,2}\/([\w.-]+\.js)["']/g)) {
        reachable(chunk!, seen);
      }
      return seen;
    };
    const loaded = (entry: string) =>
      [...reachable(entry)].map((file) => modules.get(file) ?? '').join('\n');
    // The first assertions prove the walk reached the chunks; the last ones are the point.
    expect(loaded('rest/index.js')).toContain('text/event-stream');
    expect(loaded('sse/index.js')).toContain('retry');
    expect(loaded('socket/index.js')).toContain('socket.io-client');
    expect(loaded('rest/index.js')).not.toContain('socket.io-client');
    expect(loaded('sse/index.js')).not.toContain('socket.io-client');
  });
});
