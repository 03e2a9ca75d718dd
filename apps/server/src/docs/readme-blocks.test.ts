import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every code block of the root README is run as written by a test, or says why it cannot be. This file is the
// inventory: it finds each block (by the marker comment before it, else by its heading and a line it holds),
// checks that the test named for it exists and selects that block by the same heading or words, and fails on a
// block nobody runs, naming the marker to add. The tests named here extract the block and execute it.
//
// Marker convention (an HTML comment on the line right before the opening fence; blank lines between are fine):
//   <!-- run: apps/server/src/docs/readme-memory.test.ts -->    the test (path from the repository's root)
//   <!-- not-run: installs a system package (apt-get) -->         why no test can run it
// A marker wins over the table below, which names the blocks written before the convention.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const README = `${ROOT}README.md`;

interface Block {
  /** The nearest heading above the block, as written (`## For operators`). */
  heading: string;
  language: string;
  code: string;
  /** The README line of the opening fence (1-based). */
  line: number;
  marker?: { kind: 'run' | 'not-run'; value: string };
}

/** A block known before the marker convention: where it is, and the test that runs it or why none can. */
interface Known {
  heading: string;
  /** Words the block holds. */
  holds: string;
  /** Each test that runs it, with the words (a heading, a line of the block) that test finds the block by. */
  runBy?: readonly { test: string; selects: string }[];
  /** Lines of the block no test runs, each with why. */
  notRunLines?: readonly { line: string; why: string }[];
  notRun?: string;
}

const KNOWN: readonly Known[] = [
  {
    heading: '## Two commands',
    holds: 'npx -y pnpm@10 check',
    notRun:
      'its second line is the test command itself (`check` runs this file: it would recurse), and its first ' +
      'installs into the tree the suite runs from; the same start script, with settings, is run as written ' +
      'by readme-operator.test.ts',
  },
  {
    heading: '### A real model, in one line',
    holds: 'MODEL_PROVIDER=openai',
    runBy: [
      { test: 'apps/server/src/docs/readme-models.test.ts', selects: 'A real model, in one line' },
    ],
  },
  {
    heading: '## For plugin authors',
    holds: '// deploys.js',
    runBy: [
      { test: 'apps/server/src/docs/readme-plugins.test.ts', selects: 'For plugin authors' },
      { test: 'integration/readme/readme-examples.test.ts', selects: "from '@parley/plugin-sdk'" },
    ],
  },
  {
    heading: '## For plugin authors',
    holds: 'PLUGINS=examples,./deploys.js',
    runBy: [{ test: 'apps/server/src/docs/readme-plugins.test.ts', selects: 'For plugin authors' }],
  },
  {
    heading: '## For plugin authors',
    holds: '// dice.js',
    runBy: [{ test: 'apps/server/src/docs/readme-plugins.test.ts', selects: 'For plugin authors' }],
  },
  {
    heading: '## For plugin authors',
    holds: 'PLUGINS=examples,./dice.js',
    runBy: [{ test: 'apps/server/src/docs/readme-plugins.test.ts', selects: 'For plugin authors' }],
  },
  {
    heading: '## For integrators',
    holds: "from '@parley/client'",
    runBy: [
      { test: 'integration/readme/readme-examples.test.ts', selects: "from '@parley/client'" },
      { test: 'integration/readme/integrator-example.test.ts', selects: 'README' },
    ],
  },
  {
    heading: '## For operators',
    holds: 'cat > ada.json',
    runBy: [{ test: 'apps/server/src/docs/readme-operator.test.ts', selects: 'For operators' }],
    notRunLines: [
      {
        line: 'npx -y pnpm@10 install',
        why: 'install rewrites node_modules of the tree the suite runs from (the suite ran it already)',
      },
    ],
  },
];

async function readmeBlocks(): Promise<Block[]> {
  const lines = (await readFile(README, 'utf8')).split('\n');
  const blocks: Block[] = [];
  let heading = '';
  for (let at = 0; at < lines.length; at++) {
    const text = lines[at]!;
    if (/^#{1,6} /.test(text)) heading = text.trim();
    const fence = /^```(\w*)\s*$/.exec(text);
    if (!fence) continue;
    const end = lines.findIndex((line, index) => index > at && /^```\s*$/.test(line));
    if (end < 0) throw new Error(`README line ${at + 1}: a code block that never closes`);
    let before = at - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const comment = /^<!--\s*(run|not-run):\s*(.+?)\s*-->$/.exec(lines[before]?.trim() ?? '');
    blocks.push({
      heading,
      language: fence[1] ?? '',
      code: lines.slice(at + 1, end).join('\n'),
      line: at + 1,
      marker: comment ? { kind: comment[1] as 'run' | 'not-run', value: comment[2]! } : undefined,
    });
    at = end;
  }
  return blocks;
}

/** What a block is claimed to be: a test that runs it, or why none can. */
function claimOf(
  block: Block,
):
  | { runBy: readonly { test: string; selects: string }[]; known?: Known }
  | { notRun: string }
  | undefined {
  // A marked block's test finds it by its marker (or its heading).
  if (block.marker?.kind === 'run') return { runBy: [{ test: block.marker.value, selects: '' }] };
  if (block.marker?.kind === 'not-run') return { notRun: block.marker.value };
  const known = KNOWN.find(
    (entry) => entry.heading === block.heading && block.code.includes(entry.holds),
  );
  if (!known) return undefined;
  return known.notRun ? { notRun: known.notRun } : { runBy: known.runBy ?? [], known };
}

const blocks = await readmeBlocks();

describe('README: every code block is run by a test, or says why not', () => {
  it('finds the README blocks', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(KNOWN.length);
  });

  it('has no block without a test or a reason', () => {
    const orphans = blocks
      .filter((block) => claimOf(block) === undefined)
      .map(
        (block) =>
          `README line ${block.line} (${block.heading}, ${block.language || 'text'} block): put ` +
          '`<!-- run: <test path> -->` or `<!-- not-run: <why> -->` on the line before its fence',
      );
    expect(orphans).toEqual([]);
  });

  it('names no block the README lost', () => {
    const lost = KNOWN.filter(
      (entry) =>
        !blocks.some(
          (block) => block.heading === entry.heading && block.code.includes(entry.holds),
        ),
    ).map((entry) => `${entry.heading}: ${entry.holds}`);
    expect(lost).toEqual([]);
  });

  for (const block of blocks) {
    const claim = claimOf(block);
    if (!claim) continue;
    const name = `${block.heading} (${block.language || 'text'}, README line ${block.line})`;
    if ('notRun' in claim) {
      it(`not run: ${name}, because ${claim.notRun}`, () => {
        expect(claim.notRun.trim().length).toBeGreaterThan(10);
      });
      continue;
    }
    const tests = claim.runBy.map((entry) => entry.test).join(', ');
    it(`run by ${tests}: ${name}`, async () => {
      expect(claim.runBy.length).toBeGreaterThan(0);
      for (const { test: path, selects } of claim.runBy) {
        expect(existsSync(`${ROOT}${path}`), `${path} exists`).toBe(true);
        const test = await readFile(`${ROOT}${path}`, 'utf8');
        // The test reads the README and finds this block: by its marker, its heading, or words it holds.
        expect(test).toContain('README');
        const finds = selects
          ? [selects]
          : [block.heading.replace(/^#+ /, ''), 'run: ' + path, '<!-- run:'];
        expect(
          finds.some((words) => test.includes(words)),
          `${path} finds the block (by ${finds.join(' or ')})`,
        ).toBe(true);
      }
      for (const skipped of claim.known?.notRunLines ?? []) {
        expect(block.code, 'a line said not to run is in the block').toContain(skipped.line);
        expect(skipped.why.length).toBeGreaterThan(10);
      }
    });
  }
});
