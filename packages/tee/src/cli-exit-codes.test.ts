import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLATERAL_TIMES, DCAP_QVL_COLLATERAL, REAL_QUOTES } from './test-fixtures/real-quotes';

// `parley-tee` as a script runs it: the built program (turbo builds the package before its tests,
// packages/tee/turbo.json) in a child process, judged by its exit status alone.
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
// The command npm and pnpm link (package.json `bin`): a committed file that loads the built program.
const BIN = fileURLToPath(new URL('../bin/parley-tee.mjs', import.meta.url));
const NOW = new Date(COLLATERAL_TIMES.dcapQvl).toISOString();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-tee-cli-'));
  const tampered = Buffer.from(REAL_QUOTES.dcapQvl);
  tampered[200]! ^= 1;
  await Promise.all([
    writeFile(join(dir, 'quote.bin'), REAL_QUOTES.dcapQvl),
    writeFile(join(dir, 'tampered.bin'), tampered),
    writeFile(join(dir, 'collateral.json'), DCAP_QVL_COLLATERAL),
  ]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs the built CLI in `dir`; resolves with its exit code and output. */
const run = (args: string[]) => runProgram(CLI, args);

/** Runs `program` (the built CLI or the bin file) in `dir`; resolves with its exit code and output. */
function runProgram(
  program: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [program, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const withCollateral = ['verify', 'quote.bin', '--collateral', 'collateral.json', '--now', NOW];

// Each case starts node: generous bounds, for a loaded machine.
describe('parley-tee exit status (child process)', { timeout: 60_000 }, () => {
  it('0: a genuine quote verified with its collateral, and --help', async () => {
    const valid = await run(withCollateral);
    expect(valid).toMatchObject({ code: 0, stderr: '' });
    expect(valid.stdout).toMatch(/^verdict: VALID\n[\s\S]*tcb status: UpToDate\n/);
    expect((await run(['--help'])).code).toBe(0);
  });

  it('the same through the bin file the package links (`parley-tee`), output and exit status', async () => {
    const [direct, linked] = await Promise.all([
      run(withCollateral),
      runProgram(BIN, withCollateral),
    ]);
    expect(linked).toEqual(direct);
    expect(linked.code).toBe(0);
    expect(await runProgram(BIN, ['verify', 'tampered.bin', '--now', NOW])).toMatchObject({
      code: 1,
    });
  });

  it('3: a genuine quote without collateral (TCB and revocation unchecked); 0 only with --allow-no-collateral', async () => {
    const partial = await run(['verify', 'quote.bin', '--now', NOW]);
    expect(partial.code).toBe(3);
    expect(partial.stdout).toMatch(/^verdict: NOT FULLY VERIFIED \(.*no collateral/);
    const json = await run(['verify', 'quote.bin', '--now', NOW, '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: true,
      fullyVerified: false,
      exitCode: 3,
    });
    const allowed = await run(['verify', 'quote.bin', '--now', NOW, '--allow-no-collateral']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^verdict: VALID \(no collateral: /);
  });

  it('1: a tampered quote, and a refused TCB status, which the JSON carries as a field', async () => {
    const tampered = await run(['verify', 'tampered.bin', '--now', NOW]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/^verdict: INVALID \(QUOTE_SIGNATURE: /);
    // The real platform is UpToDate; a policy that accepts only SWHardeningNeeded refuses it.
    const narrow = [...withCollateral, '--accept', 'SWHardeningNeeded'];
    const refused = await run([...narrow, '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      valid: false,
      failure: 'TCB_STATUS',
      tcb: { status: 'UpToDate', advisoryIds: [] },
    });
    const text = await run(narrow);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^verdict: INVALID \(TCB_STATUS: .*\)\ntcb status: UpToDate\n/);
  });

  it('2: a bad --now, an unknown option or status, a missing file: usage, never a stack trace', async () => {
    const cases = [
      ['verify', 'quote.bin', '--now', 'yesterday'],
      ['verify', 'quote.bin', '--now', '2025-02-30'],
      ['verify', 'quote.bin', '--now', '5'],
      ['verify', 'quote.bin', '--now', ''],
      ['verify', 'quote.bin', '--bogus'],
      ['verify', 'quote.bin', '--accept', 'Nope'],
      ['verify', 'missing.bin'],
      ['verify'],
    ];
    const results = await Promise.all(cases.map(run));
    for (const [index, result] of results.entries()) {
      expect(result.code, cases[index]!.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(results[0]!.stderr).toContain('--now "yesterday" is not an ISO 8601 date');
  });
});
