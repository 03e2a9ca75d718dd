import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnParley, untilListening } from '../test/parley-child';

// The root README's plugin examples, taken from the README and run as written: each `js` block is saved where
// its first line says it lives (the repository's root, so that `@parley/plugin-sdk` resolves as it does for a
// reader of a clone), and each `sh` block's first line starts the server with the settings it shows (the start
// script runs the built app, which is what this test starts); the rest of the block runs against it, and its
// `# …` lines are the output the README promises, with `…` standing for anything and digits for any number.
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const README = join(ROOT, 'README.md');
const DOCUMENTED_BASE = 'http://127.0.0.1:3000';
const START = 'npx -y pnpm@10 start';
const run = promisify(execFile);

interface Block {
  language: string;
  code: string;
}

async function pluginSection(): Promise<Block[]> {
  const text = await readFile(README, 'utf8');
  const from = text.indexOf('## For plugin authors');
  const section = text.slice(from, text.indexOf('\n## ', from + 1));
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((match) => ({
    language: match[1] ?? '',
    code: match[2] ?? '',
  }));
}

/** The file a `js` block says it is, from its first line (`// deploys.js, at …`). */
function fileOf(block: Block): string | undefined {
  return /^\/\/ ([\w.-]+\.m?js)[,:]/.exec(block.code)?.[1];
}

/** A pattern for the output the README shows: `…` is anything, a number is any number, the rest is literal. */
function outputPattern(shown: string): RegExp {
  const literal = (part: string) =>
    part
      .split(/\d+/)
      .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\d+');
  return new RegExp(`^${shown.split('…').map(literal).join('[\\s\\S]*')}\\s*$`);
}

let cwd: string;
beforeAll(async () => {
  // A folder inside the clone behaves as its root does: modules resolve from the root's node_modules and the
  // root's package.json makes `.js` files ES modules.
  cwd = await mkdtemp(join(ROOT, '.readme-plugins-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('README: for plugin authors', () => {
  it('says where every plugin file lives, and starts each one it shows', async () => {
    const blocks = await pluginSection();
    const files = blocks.filter((block) => block.language !== 'sh');
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const block of files)
      expect({ block: block.code, file: fileOf(block) }).toMatchObject({
        file: expect.stringMatching(/\.m?js$/),
      });
    const starts = blocks
      .filter((block) => block.language === 'sh')
      .map((block) => block.code.split('\n')[0] ?? '');
    for (const block of files) {
      expect(
        starts.some((line) => line.includes(`PLUGINS=examples,./${fileOf(block)} ${START}`)),
      ).toBe(true);
    }
  });

  it('runs every example as written: the server starts with the plugin and the calls answer as shown', async () => {
    const blocks = await pluginSection();
    for (const block of blocks.filter((each) => each.language === 'js'))
      await writeFile(join(cwd, fileOf(block) ?? 'unnamed.js'), block.code);

    const shells = blocks.filter((block) => block.language === 'sh');
    expect(shells.length).toBeGreaterThanOrEqual(2);
    for (const { code } of shells) {
      const [start = '', ...rest] = code.trimEnd().split('\n');
      expect(start).toContain(START);
      const env = Object.fromEntries(
        [...start.slice(0, start.indexOf(START)).matchAll(/([A-Z_]+)=(\S+)/g)].map(
          ([, name, value]) => [name, value],
        ),
      ) as Record<string, string>;
      const child = spawnParley(cwd, [], { ...env, PORT: '0', LOG_FORMAT: 'json' });
      const { exited, url, lines } = await untilListening(child);
      try {
        const script = rest.filter((line) => !line.startsWith('#')).join('\n');
        const shown = rest.filter((line) => line.startsWith('# ')).map((line) => line.slice(2));
        expect(script).toContain(DOCUMENTED_BASE);
        const { stdout } = await run(
          'sh',
          ['-c', `set -e\n${script.replaceAll(DOCUMENTED_BASE, url)}`],
          {
            cwd,
          },
        );
        expect(shown.length).toBeGreaterThan(0);
        expect(stdout).toMatch(outputPattern(shown.join('\n')));
        // A plugin the server could not load, or a handler that failed, would be in the log.
        expect(lines.filter((line) => line.level === 'error' || line.level === 50)).toEqual([]);
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    }
  }, 180_000);
});
