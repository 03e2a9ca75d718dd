import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli';
import { COLLATERAL_TIMES, DCAP_QVL_COLLATERAL, REAL_QUOTES } from './test-fixtures/real-quotes';

// The command a relying party runs on a quote file: verdict, TCB status and measurements.
function io(files: Record<string, Buffer | string>) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      out: (line: string) => out.push(line),
      err: (line: string) => err.push(line),
      readFile: (path: string) =>
        path in files
          ? Promise.resolve(Buffer.from(files[path]!))
          : readFile(`/nonexistent/${path}`),
    },
  };
}

const NOW = new Date(COLLATERAL_TIMES.dcapQvl).toISOString();

describe('parley-tee verify', () => {
  it('prints VALID, the TCB status, the PPID and the measurements of a real quote with collateral', async () => {
    const run = io({ 'quote.bin': REAL_QUOTES.dcapQvl, 'collateral.json': DCAP_QVL_COLLATERAL });
    const code = await runCli(
      ['verify', 'quote.bin', '--collateral', 'collateral.json', '--now', NOW],
      run.io,
    );
    expect(code).toBe(0);
    const text = run.out.join('\n');
    expect(text).toContain('verdict: VALID');
    expect(text).toContain('tcb status: UpToDate');
    expect(text).toMatch(/ppid: [0-9a-f]{32}/);
    expect(text).toMatch(/mrTd: 91eb2b44[0-9a-f]{88}/);
    expect(text).toMatch(/rtmr3: [0-9a-f]{96}/);
  });

  it('reads hex and base64 files alike, and says the TCB is unknown without collateral (exit 3)', async () => {
    for (const content of [
      REAL_QUOTES.dcapQvl.toString('hex'),
      REAL_QUOTES.dcapQvl.toString('base64'),
    ]) {
      const run = io({ 'quote.txt': content });
      expect(await runCli(['verify', 'quote.txt', '--now', NOW], run.io)).toBe(3);
      expect(run.out[0]).toMatch(/^verdict: NOT FULLY VERIFIED /);
      expect(run.out).toContain(
        'tcb status: unknown (no collateral: revocation and TCB level not checked)',
      );
    }
  });

  it('prints INVALID with the reason and exits 1 for a tampered quote, and a soft expiry on request', async () => {
    const tampered = Buffer.from(REAL_QUOTES.dcapQvl);
    tampered[200]! ^= 1;
    const run = io({ 'quote.bin': tampered });
    expect(await runCli(['verify', 'quote.bin', '--now', NOW], run.io)).toBe(1);
    expect(run.out[0]).toMatch(/^verdict: INVALID \(QUOTE_SIGNATURE: /);
    const later = io({ 'quote.bin': REAL_QUOTES.dcapQvl, 'c.json': DCAP_QVL_COLLATERAL });
    const args = ['verify', 'quote.bin', '--collateral', 'c.json', '--now', '2027-01-01T00:00:00Z'];
    expect(await runCli(args, later.io)).toBe(1);
    expect(later.out[0]).toContain('COLLATERAL_EXPIRED');
    const soft = io({ 'quote.bin': REAL_QUOTES.dcapQvl, 'c.json': DCAP_QVL_COLLATERAL });
    expect(await runCli([...args, '--allow-expired-collateral'], soft.io)).toBe(0);
    expect(soft.out.join('\n')).toMatch(/collateral expired: TCB info is valid from/);
  });

  it('exits 2 on usage errors and unreadable files, without a stack trace', async () => {
    for (const args of [
      [],
      ['verify'],
      ['check', 'x'],
      ['verify', 'missing.bin'],
      ['verify', 'q', '--accept', 'Nope'],
      ['verify', 'q', '--bogus'],
    ]) {
      const run = io({ q: REAL_QUOTES.dcapQvl });
      expect(await runCli(args, run.io), args.join(' ')).toBe(2);
      expect(run.err.join('\n')).not.toMatch(/\n\s+at /);
    }
    const json = io({ q: 'not a quote' });
    expect(await runCli(['verify', 'q', '--json'], json.io)).toBe(1);
    expect(JSON.parse(json.out[0]!)).toMatchObject({ valid: false, failure: 'FORMAT' });
  });
});
