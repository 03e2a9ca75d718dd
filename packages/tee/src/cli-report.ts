import type { TcbEvaluation } from './collateral/tcb-evaluation';
import type { QuoteVerification } from './quote/quote-verification';
import { TD_MEASUREMENT_FIELDS } from './quote/tdx-quote-layout';

/** `parley-tee`'s exit statuses. */
export const EXIT = {
  /** Valid, with collateral (revocation and TCB status checked), or without it under `--allow-no-collateral`. */
  valid: 0,
  /** Invalid: the first failed check is printed. */
  invalid: 1,
  /** Usage error (unknown option, bad `--now`, unknown status) or unreadable input. */
  usage: 2,
  /** The quote's signatures and certificate chain are valid, but no collateral: revocation and TCB unchecked. */
  noCollateral: 3,
} as const;

/** What the report says and how the program ends. */
export interface CliReport {
  lines: string[];
  code: number;
}

const NO_COLLATERAL = 'no collateral: revocation and TCB level not checked';

function verdictOf(
  result: Extract<QuoteVerification, { valid: true }>,
  allowNoCollateral: boolean,
): { verdict: string; code: number } {
  if (result.tcb) return { verdict: 'VALID', code: EXIT.valid };
  return allowNoCollateral
    ? { verdict: `VALID (${NO_COLLATERAL}; --allow-no-collateral)`, code: EXIT.valid }
    : {
        verdict: `NOT FULLY VERIFIED (quote signatures and certificate chain valid; ${NO_COLLATERAL})`,
        code: EXIT.noCollateral,
      };
}

function tcbLines(tcb: TcbEvaluation): string[] {
  return [
    `tcb status: ${tcb.status}`,
    `advisories: ${tcb.advisoryIds.join(', ') || '(none)'}`,
    `fmspc: ${tcb.fmspc}, collateral valid until ${tcb.nextUpdate}`,
    ...(tcb.collateralExpired ?? []).map((note) => `collateral expired: ${note}`),
  ];
}

/** The text report of a verification: verdict, TCB, PPID and measurements; and the exit status. */
export function textReport(result: QuoteVerification, allowNoCollateral: boolean): CliReport {
  if (!result.valid) {
    // A refused TCB status carries its evaluation: print it as a valid result's would be.
    const tcb = result.tcb ? tcbLines(result.tcb) : [];
    return {
      lines: [`verdict: INVALID (${result.failure}: ${result.message})`, ...tcb],
      code: EXIT.invalid,
    };
  }
  const { verdict, code } = verdictOf(result, allowNoCollateral);
  const { header, body, bodyType } = result.quote;
  const lines = [
    `verdict: ${verdict}`,
    `root: ${result.root}`,
    `quote: v${header.version}, TD report ${bodyType === 3 ? '1.5' : '1.0'}`,
    ...(result.tcb ? tcbLines(result.tcb) : [`tcb status: unknown (${NO_COLLATERAL})`]),
    ...(result.ppid ? [`ppid: ${result.ppid}`] : []),
  ];
  const fields = [...TD_MEASUREMENT_FIELDS, 'tdAttributes', 'xfam', 'teeTcbSvn', 'reportData'];
  for (const field of fields) lines.push(`${field}: ${body[field as keyof typeof body]}`);
  return { lines, code };
}

/**
 * The JSON report: a failure as `verifyQuote` returns it (with `tcb` for a refused TCB status), or the valid
 * result with `fullyVerified` (false without collateral) and `exitCode`.
 */
export function jsonReport(result: QuoteVerification, allowNoCollateral: boolean): CliReport {
  if (!result.valid) return { lines: [JSON.stringify(result, null, 2)], code: EXIT.invalid };
  const { code } = verdictOf(result, allowNoCollateral);
  const report = {
    valid: true,
    fullyVerified: result.tcb !== undefined,
    exitCode: code,
    root: result.root,
    ppid: result.ppid,
    tcb: result.tcb,
    header: result.quote.header,
    body: result.quote.body,
  };
  return { lines: [JSON.stringify(report, null, 2)], code };
}
