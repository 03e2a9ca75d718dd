#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { fetchCollateralForQuote } from './collateral/fetch-collateral';
import { parseDcapQvlCollateral } from './collateral/parse-collateral';
import type { TdxCollateral } from './collateral/collateral';
import { TCB_STATUSES, type TcbStatus } from './collateral/tcb-evaluation';
import type { VerifyQuoteOptions } from './quote/quote-verification';
import { TD_MEASUREMENT_FIELDS } from './quote/tdx-quote-layout';
import { verifyQuote } from './quote/verify-quote';

const USAGE = `Usage: parley-tee verify <quote-file> [options]

Verifies an Intel TDX quote (v4/v5) offline and prints the verdict, TCB status and measurements.
The file holds the quote as raw bytes, hex or base64.

Options:
  --collateral <file>          Intel collateral in dcap-qvl's JSON shape (gives the TCB status)
  --pccs <url>                 fetch collateral from Intel PCS or a PCCS at <url> instead
  --accept <s1,s2>             TCB statuses to accept (default: UpToDate)
  --allow-expired-collateral   report collateral past its dates instead of failing
  --now <ISO date>             verify at this time (default: now)
  --allow-debug                accept a debug TD
  --allow-simulator            also trust Parley's simulator root (development only)
  --json                       print the result as JSON
Exit status: 0 valid, 1 invalid, 2 usage or unreadable input.`;

/** Where the CLI writes; replaced in tests. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  readFile: (path: string) => Promise<Buffer>;
  fetch?: (url: string) => Promise<Response>;
}

/** Quote bytes from a file's content: hex or base64 text, else the raw bytes. */
export function quoteBytesOf(content: Buffer): Uint8Array {
  const text = content.toString('latin1').trim();
  if (/^(0x)?([0-9a-fA-F]{2})+$/.test(text)) return Buffer.from(text.replace(/^0x/, ''), 'hex');
  if (text.length > 0 && /^[A-Za-z0-9+/\s]+={0,2}$/.test(text)) return Buffer.from(text, 'base64');
  return content;
}

function statusesOf(list: string | undefined): TcbStatus[] | string {
  if (list === undefined) return ['UpToDate'];
  const statuses = list.split(',').map((entry) => entry.trim());
  const unknown = statuses.find((entry) => !(TCB_STATUSES as readonly string[]).includes(entry));
  return unknown ? `unknown TCB status ${unknown}` : (statuses as TcbStatus[]);
}

/** Runs `parley-tee` with the given arguments; resolves to the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        collateral: { type: 'string' },
        pccs: { type: 'string' },
        accept: { type: 'string' },
        'allow-expired-collateral': { type: 'boolean' },
        now: { type: 'string' },
        'allow-debug': { type: 'boolean' },
        'allow-simulator': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] !== 'verify' || positionals.length !== 2) {
    io.err(USAGE);
    return values.help ? 0 : 2;
  }
  const accepted = statusesOf(values.accept);
  if (typeof accepted === 'string') {
    io.err(accepted);
    return 2;
  }
  let quote: Uint8Array;
  let collateral: TdxCollateral | undefined;
  try {
    quote = quoteBytesOf(await io.readFile(positionals[1]!));
    if (values.collateral) {
      collateral = parseDcapQvlCollateral((await io.readFile(values.collateral)).toString('utf8'));
    } else if (values.pccs) {
      collateral = await fetchCollateralForQuote(quote, {
        baseUrl: values.pccs,
        ...(io.fetch && { fetch: io.fetch }),
      });
    }
  } catch (error) {
    io.err(`cannot read input: ${(error as Error).message}`);
    return 2;
  }
  const options: VerifyQuoteOptions = {
    acceptedTcbStatuses: accepted,
    ...(collateral && { collateral }),
    ...(values.now !== undefined && { now: new Date(values.now) }),
    ...(values['allow-debug'] && { allowDebug: true }),
    ...(values['allow-simulator'] && { allowSimulator: true }),
    ...(values['allow-expired-collateral'] && { allowExpiredCollateral: true }),
  };
  const result = verifyQuote(quote, options);
  if (values.json) {
    io.out(
      JSON.stringify(
        result.valid
          ? {
              valid: true,
              root: result.root,
              ppid: result.ppid,
              tcb: result.tcb,
              header: result.quote.header,
              body: result.quote.body,
            }
          : result,
        null,
        2,
      ),
    );
    return result.valid ? 0 : 1;
  }
  if (!result.valid) {
    io.out(`verdict: INVALID (${result.failure}: ${result.message})`);
    return 1;
  }
  const { header, body, bodyType } = result.quote;
  io.out('verdict: VALID');
  io.out(`root: ${result.root}`);
  io.out(`quote: v${header.version}, TD report ${bodyType === 3 ? '1.5' : '1.0'}`);
  if (result.tcb) {
    io.out(`tcb status: ${result.tcb.status}`);
    io.out(`advisories: ${result.tcb.advisoryIds.join(', ') || '(none)'}`);
    io.out(`fmspc: ${result.tcb.fmspc}, collateral valid until ${result.tcb.nextUpdate}`);
    for (const note of result.tcb.collateralExpired ?? []) io.out(`collateral expired: ${note}`);
  } else {
    io.out('tcb status: unknown (no collateral: revocation and TCB level not checked)');
  }
  if (result.ppid) io.out(`ppid: ${result.ppid}`);
  for (const field of [
    ...TD_MEASUREMENT_FIELDS,
    'tdAttributes',
    'xfam',
    'teeTcbSvn',
    'reportData',
  ] as const) {
    io.out(`${field}: ${body[field]}`);
  }
  return 0;
}

/** Whether this module is the program (run as `parley-tee`, through npm's bin link, or `node dist/cli.js`). */
function invokedDirectly(): boolean {
  try {
    return (
      process.argv[1] !== undefined &&
      import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href
    );
  } catch {
    return false;
  }
}
if (invokedDirectly()) {
  // A reader that stops early (`| head`) ends the output, not the program with a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  void runCli(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    readFile: (path) => readFile(path),
  }).then((code) => {
    process.exitCode = code;
  });
}
