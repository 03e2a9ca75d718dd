#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { fetchCollateralForQuote } from './collateral/fetch-collateral';
import { parseDcapQvlCollateral } from './collateral/parse-collateral';
import type { TdxCollateral } from './collateral/collateral';
import { z } from 'zod';
import { EXIT, jsonReport, textReport } from './cli-report';
import { RECEIPT_USAGE, runVerifyReceipt } from './cli-receipt';
import { TCB_STATUSES, type TcbStatus } from './collateral/tcb-evaluation';
import type { VerifyQuoteOptions } from './quote/quote-verification';
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
  --allow-no-collateral        exit 0, not 3, for a valid quote verified without collateral
  --json                       print the result as JSON
Exit status:
  0  valid (with collateral: revocation and TCB status checked; without, only with --allow-no-collateral)
  1  invalid (the first failed check is printed: FAILURE: reason)
  2  usage error or unreadable input (unknown option, --now not an ISO 8601 date, unknown TCB status)
  3  not fully verified: signatures and certificate chain valid, but no collateral, so revocation and
     TCB status were not checked (pass --collateral or --pccs)`;

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

/** The registration quote a receipt file (or a page of receipts) carries, for `--pccs`; or undefined. */
function receiptQuoteOf(text: string): Uint8Array | undefined {
  type Registration = { attestation?: unknown };
  type Content = { attestation?: Registration; attestations?: Registration[] };
  try {
    const json = JSON.parse(text) as Content & { data?: Content };
    const content = json.data ?? json;
    const quote = content.attestation?.attestation ?? content.attestations?.[0]?.attestation;
    return typeof quote === 'string' ? quoteBytesOf(Buffer.from(quote)) : undefined;
  } catch {
    return undefined;
  }
}

/** An ISO 8601 date (`2025-07-01`) or date-time with its zone (`2025-07-01T00:00:00Z`), calendar-checked. */
const ISO_DATE = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

/** The `--now` time, or a usage message; V8 alone would read `5` as 2001 and `2025-02-30` as March 2. */
function nowOf(value: string | undefined): Date | undefined | string {
  if (value === undefined) return undefined;
  const time = new Date(value);
  return ISO_DATE.safeParse(value).success && !Number.isNaN(time.getTime())
    ? time
    : `--now ${JSON.stringify(value)} is not an ISO 8601 date (e.g. 2025-07-01T00:00:00Z)`;
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
        'allow-no-collateral': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
        chain: { type: 'boolean' },
        mrtd: { type: 'string' },
        'compose-hash': { type: 'string' },
        'app-id': { type: 'string' },
      },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (
    values.help ||
    (command !== 'verify' && command !== 'verify-receipt') ||
    positionals.length !== 2
  ) {
    io.err(command === 'verify-receipt' ? RECEIPT_USAGE : `${USAGE}\n\n${RECEIPT_USAGE}`);
    return values.help ? 0 : EXIT.usage;
  }
  if (
    command === 'verify' &&
    (values.chain || values.mrtd || values['compose-hash'] || values['app-id'])
  ) {
    io.err(
      `--chain, --mrtd, --compose-hash and --app-id are options of verify-receipt\n\n${USAGE}`,
    );
    return EXIT.usage;
  }
  const usage = (problem: string) => {
    io.err(problem);
    return EXIT.usage;
  };
  const accepted = statusesOf(values.accept);
  if (typeof accepted === 'string') return usage(accepted);
  const now = nowOf(values.now);
  if (typeof now === 'string') return usage(now);
  let quote: Uint8Array | undefined;
  let receiptText: string | undefined;
  let collateral: TdxCollateral | undefined;
  try {
    const file = await io.readFile(positionals[1]!);
    if (command === 'verify') quote = quoteBytesOf(file);
    else receiptText = file.toString('utf8');
    if (values.collateral) {
      collateral = parseDcapQvlCollateral((await io.readFile(values.collateral)).toString('utf8'));
    } else if (values.pccs) {
      const forQuote = quote ?? receiptQuoteOf(receiptText!);
      if (!forQuote) return usage('--pccs needs a receipt file that carries the agent attestation');
      collateral = await fetchCollateralForQuote(forQuote, {
        baseUrl: values.pccs,
        ...(io.fetch && { fetch: io.fetch }),
      });
    }
  } catch (error) {
    return usage(`cannot read input: ${(error as Error).message}`);
  }
  const options: VerifyQuoteOptions = {
    acceptedTcbStatuses: accepted,
    ...(collateral && { collateral }),
    ...(now && { now }),
    ...(values['allow-debug'] && { allowDebug: true }),
    ...(values['allow-simulator'] && { allowSimulator: true }),
    ...(values['allow-expired-collateral'] && { allowExpiredCollateral: true }),
  };
  if (receiptText !== undefined) {
    const report = runVerifyReceipt(receiptText, values, options);
    if (typeof report === 'string') return usage(report);
    for (const line of report.lines) io.out(line);
    return report.code;
  }
  const result = verifyQuote(quote!, options);
  const report = (values.json ? jsonReport : textReport)(
    result,
    values['allow-no-collateral'] === true,
  );
  for (const line of report.lines) io.out(line);
  return report.code;
}

/** Whether this module is the program (`node dist/cli.js`); `parley-tee` runs it through `bin/parley-tee.mjs`. */
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

/**
 * Runs `parley-tee` as the program: the command line's arguments, the process's output, its exit code. Called
 * by the package's `bin/parley-tee.mjs` (a committed file, so that installing links the command before `dist/`
 * is built) and when this file is run itself (`node dist/cli.js`).
 */
export function runProgram(): void {
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
if (invokedDirectly()) runProgram();
