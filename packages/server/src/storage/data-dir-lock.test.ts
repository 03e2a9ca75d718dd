import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ParleyError } from '@parley/core';
import ts from 'typescript';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase } from './create-database';
import { LOCK_FILE, lockDataDir } from './data-dir-lock';

// Other processes run the real module: transpiled to JavaScript next to the package, so that its imports
// resolve from the package's own node_modules.
const runnerDir = fileURLToPath(
  new URL('../../node_modules/.cache/data-dir-lock-test', import.meta.url),
);
const holderScript = join(runnerDir, 'holder.mjs');

const HOLDER = `
import { lockDataDir } from './data-dir-lock.mjs';
const [dataDir, mode] = process.argv.slice(2);
try {
  lockDataDir(dataDir);
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
console.log('locked');
if (mode === 'exit') process.exit(0);
setInterval(() => undefined, 60_000);
`;

beforeAll(() => {
  const source = readFileSync(
    fileURLToPath(new URL('./data-dir-lock.ts', import.meta.url)),
    'utf8',
  );
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  mkdirSync(runnerDir, { recursive: true });
  writeFileSync(join(runnerDir, 'data-dir-lock.mjs'), outputText);
  writeFileSync(holderScript, HOLDER);
});

const children: ChildProcess[] = [];

/** Runs the holder in another process; resolves once it has the lock, or with its one line if it failed. */
function startHolder(dataDir: string, mode: 'hold' | 'exit' = 'hold') {
  const child = spawn(process.execPath, [holderScript, dataDir, mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (data: string) => (stdout += data));
  child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => stdout.includes('locked') && resolve());
    void exited.then((code) => reject(new Error(`holder exited (${code}): ${stderr.trim()}`)));
  });
  locked.catch(() => undefined);
  return { child, locked, exited, output: () => ({ stdout, stderr }) };
}

describe('lockDataDir', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'parley-lock-'));
  });

  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('holds the folder until released, also against this process', () => {
    const lock = lockDataDir(dataDir);
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(process.pid));
    expect(() => lockDataDir(dataDir)).toThrow(/in use by this process already/);
    lock.release();
    lock.release();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    lockDataDir(dataDir).release();
  });

  it('stops a second process with one line naming the holder', async () => {
    const lock = lockDataDir(dataDir);
    try {
      const second = startHolder(dataDir);
      expect(await second.exited).toBe(1);
      const { stdout, stderr } = second.output();
      expect(stdout).toBe('');
      expect(stderr.trim().split('\n')).toEqual([
        expect.stringContaining(`in use by another process (pid ${process.pid})`),
      ]);
    } finally {
      lock.release();
    }
  });

  it('refuses while another process holds it, and takes over once that process was killed', async () => {
    const holder = startHolder(dataDir);
    await holder.locked;
    let refused: unknown;
    try {
      lockDataDir(dataDir).release();
    } catch (error) {
      refused = error;
    }
    expect(ParleyError.isInstance(refused) && refused.code).toBe('CONFLICT');
    expect((refused as Error).message).toContain(`pid ${holder.child.pid}`);

    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true);
    const lock = lockDataDir(dataDir);
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();
  });

  it('is released when the holding process exits', async () => {
    const holder = startHolder(dataDir, 'exit');
    await holder.locked;
    expect(await holder.exited).toBe(0);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('treats a lock naming no live process as stale', () => {
    writeFileSync(join(dataDir, LOCK_FILE), 'not a pid\n');
    lockDataDir(dataDir).release();
  });

  it('treats a lock naming a live unrelated process (a reused pid) as stale', async () => {
    // A process that is alive but is not the one that wrote the lock: its start time differs.
    const unrelated = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(unrelated);
    await new Promise((resolve) => unrelated.once('spawn', resolve));
    writeFileSync(join(dataDir, LOCK_FILE), `${unrelated.pid}\nstarted 1\nnonce ab12\n`);
    const lock = lockDataDir(dataDir);
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('still refuses a live holder whose start time matches, and leaves its lock alone', async () => {
    const holder = startHolder(dataDir);
    await holder.locked;
    const written = readFileSync(join(dataDir, LOCK_FILE), 'utf8');
    expect(written).toMatch(/^\d+\nstarted \d+\nnonce [0-9a-f]{32}\n$/);
    expect(() => lockDataDir(dataDir)).toThrow(`pid ${holder.child.pid}`);
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe(written);
  });

  it('makes createDatabase refuse a folder that is in use, before opening it', () => {
    const lock = lockDataDir(dataDir);
    try {
      expect(() => createDatabase({ kind: 'pglite', dataDir })).toThrow(/is in use by/);
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(false);
    } finally {
      lock.release();
    }
  });
});
