import { receiptSchema, type Receipt, type ReceiptAgent, type TeeAgent } from '@parley/core';
import { agentReportData } from '../attestation/attestation-digest';
import { bytesEqual, hexToBytes } from '../bytes';
import type { TcbEvaluation } from '../collateral/tcb-evaluation';
import type { DstackAppInfo } from '../event-log/dstack-app-info';
import { replayEventLog } from '../event-log/replay-event-log';
import type { TeeEvent } from '../event-log/tee-event';
import { checkMeasurements } from '../policy/check-measurements';
import type { MeasurementPolicy } from '../policy/measurement-policy';
import type { QuoteFailure, VerifyQuoteOptions } from '../quote/quote-verification';
import type { TdxQuote } from '../quote/tdx-quote';
import { verifyQuote } from '../quote/verify-quote';
import { receiptDigest, receiptSignatureValid } from './receipt-digest';

/** Which check a receipt failed; a quote's own failures keep their names (`UNTRUSTED_ROOT`, `REVOKED`…). */
export type ReceiptFailure =
  /** Not a receipt (schema), or the inputs are malformed. */
  | 'RECEIPT_FORMAT'
  /** The body does not hash to the receipt's `hash`: something in it was changed. */
  | 'DIGEST'
  /** The signature is not the body's agent key's signature of the digest. */
  | 'SIGNATURE'
  /** No quote was given (nor carried in the bundle): the key cannot be tied to a TEE. */
  | 'NO_QUOTE'
  /** The quote (or the registration given) binds another agent or key than the receipt's. */
  | 'KEY_BINDING'
  /** The receipt's simulator mark disagrees with the quote's root. */
  | 'SIMULATOR_MARK'
  | QuoteFailure;

/** What was checked, present in success and failure alike as far as the checks went. */
export interface ReceiptChecks {
  /** The digest matches the body and the agent key signed it. */
  signature: boolean;
  /** The quote verified (signatures, certificate chain, QE; TCB and revocation when collateral was given). */
  quote?: { root: 'intel' | 'simulator' | 'custom'; tcb?: TcbEvaluation };
  /** The quote's report data binds the receipt's agent and key. */
  keyBinding?: boolean;
  /** The expected code (measurements, app) was checked and matched. */
  measurements?: boolean;
}

/** The outcome of {@link verifyReceipt}. */
export type ReceiptVerification =
  | {
      valid: true;
      receipt: Receipt;
      checks: ReceiptChecks;
      root: 'intel' | 'simulator' | 'custom';
      /** True only for a receipt whose quote chains to Intel's root and that is not marked simulator. */
      hardware: boolean;
      /** The receipt was made with Parley's TEE simulator: it proves nothing about hardware. */
      simulator: boolean;
      /** Collateral was given and checked (TCB status, revocation). */
      fullyVerified: boolean;
      tcb?: TcbEvaluation;
      quote: TdxQuote;
      /** The dstack app the event log names, when `expected.eventLog` was checked. */
      app?: DstackAppInfo;
    }
  | {
      valid: false;
      failure: ReceiptFailure;
      message: string;
      checks: ReceiptChecks;
      tcb?: TcbEvaluation;
    };

/** Options of {@link verifyReceipt}: the quote policy (collateral, `now`, `allowSimulator`…) and what is expected. */
export interface VerifyReceiptOptions extends Omit<
  VerifyQuoteOptions,
  'expectedReportData' | 'measurements' | 'eventLog'
> {
  /** The agent's registration quote (base64, hex or bytes); default: `attestation.attestation`. */
  quote?: string | Uint8Array;
  /** The agent's registration (`GET /api/tee/agents`); when given, it must name the receipt's key. */
  attestation?: TeeAgent;
  /** The code expected in the TD (MRTD, RTMRs, and with `eventLog` the dstack app: compose hash, app id). */
  expected?: MeasurementPolicy;
  /** The TEE's event log (from the bundle or `GET /api/tee/agents`), for `expected.eventLog`. */
  eventLog?: readonly TeeEvent[];
}

type Failed = Extract<ReceiptVerification, { valid: false }>;

const fail = (
  failure: ReceiptFailure,
  message: string,
  checks: ReceiptChecks,
  tcb?: TcbEvaluation,
): Failed => ({ valid: false, failure, message, checks, ...(tcb && { tcb }) });

const sameAgent = (a: ReceiptAgent, b: TeeAgent) =>
  a.agentId === b.agentId &&
  a.agentName === b.agentName &&
  a.publicKey.toLowerCase() === b.publicKey.toLowerCase() &&
  a.createdAt === b.createdAt;

/** Quote bytes from base64 or hex text (the registration's `attestation` is base64), or the bytes given. */
function quoteOf(quote: string | Uint8Array): Uint8Array | string {
  if (typeof quote !== 'string') return quote;
  const text = quote.trim();
  return /^(0x)?([0-9a-fA-F]{2})+$/.test(text) ? hexToBytes(text) : text;
}

/**
 * The event log up to the point an agent quote saw: RTMR3 only grows, so a registration quoted after boot saw a
 * prefix of the log the TEE serves today. Undefined when no prefix replays to the quote's RTMR3.
 */
function eventLogPrefix(
  eventLog: readonly TeeEvent[],
  rtmr3: string,
): readonly TeeEvent[] | undefined {
  const replay = replayEventLog(eventLog);
  if (!replay.valid) return undefined;
  if (rtmr3 === '0'.repeat(96)) return eventLog.filter((entry) => entry.imr !== 3);
  const point = replay.events.find((event) => event.imr === 3 && event.registerAfter === rtmr3);
  return point && eventLog.slice(0, point.index + 1);
}

function checkCode(
  quote: TdxQuote,
  expected: MeasurementPolicy,
  eventLog: readonly TeeEvent[] | undefined,
): { ok: true; app?: DstackAppInfo } | { ok: false; failure: QuoteFailure; message: string } {
  const prefix = expected.eventLog && eventLog && eventLogPrefix(eventLog, quote.body.rtmr3);
  if (expected.eventLog && eventLog && !prefix) {
    return {
      ok: false,
      failure: 'EVENT_LOG',
      message: "the agent quote's RTMR3 is not a point of the event log",
    };
  }
  const result = checkMeasurements(quote, expected, prefix ?? eventLog);
  if (!result.valid) return { ok: false, failure: result.failure, message: result.message };
  return { ok: true, ...(result.eventLog && { app: result.eventLog.app }) };
}

/**
 * Verifies a receipt offline, in order: its shape; its digest (any changed byte of the body fails here); the
 * agent key's signature; the quote (Intel's root, or the simulator's only with `allowSimulator`; TCB status and
 * revocation with `collateral`); that the quote's report data binds the receipt's agent and key (the same binding
 * `verifyAgentAttestation` checks); that the simulator mark agrees with the root; and, with `expected`, the code
 * measured in the TD. A simulator receipt is never `hardware`.
 *
 * @example
 * const { receipt, attestation, eventLog } = JSON.parse(file);
 * const result = verifyReceipt(receipt, {
 *   attestation, eventLog, collateral,
 *   expected: { eventLog: { composeHash: EXPECTED_COMPOSE_HASH } },
 * });
 * if (result.valid && result.hardware) trust(result.receipt);
 */
export function verifyReceipt(
  input: unknown,
  options: VerifyReceiptOptions = {},
): ReceiptVerification {
  const checks: ReceiptChecks = { signature: false };
  const parsed = receiptSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(
      'RECEIPT_FORMAT',
      `not a receipt: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`,
      checks,
    );
  }
  const receipt = parsed.data;
  const { body } = receipt;
  let digest: string;
  try {
    digest = receiptDigest(body);
  } catch (error) {
    return fail('RECEIPT_FORMAT', `not a receipt: ${(error as Error).message}`, checks);
  }
  if (digest !== receipt.hash) {
    return fail('DIGEST', 'the receipt body does not match its hash: it was changed', checks);
  }
  if (!receiptSignatureValid(receipt.hash, receipt.signature, body.agent.publicKey)) {
    return fail(
      'SIGNATURE',
      "the signature is not the agent key's signature of this receipt",
      checks,
    );
  }
  checks.signature = true;

  const { quote: given, attestation, expected, eventLog, ...policy } = options;
  if (attestation && !sameAgent(body.agent, attestation)) {
    checks.keyBinding = false;
    return fail(
      'KEY_BINDING',
      `the registration given is of agent ${attestation.agentId} with another key or record`,
      checks,
    );
  }
  const quoteInput = given ?? attestation?.attestation;
  if (quoteInput === undefined || quoteInput === '') {
    return fail('NO_QUOTE', 'no quote: the key cannot be tied to a TEE', checks);
  }
  let quoteBytes: Uint8Array | string;
  try {
    quoteBytes = quoteOf(quoteInput);
  } catch (error) {
    return fail('RECEIPT_FORMAT', `the quote is malformed: ${(error as Error).message}`, checks);
  }
  const quoted = verifyQuote(quoteBytes, policy);
  if (!quoted.valid) {
    return fail(quoted.failure, `quote: ${quoted.message}`, checks, quoted.tcb);
  }
  checks.quote = { root: quoted.root, ...(quoted.tcb && { tcb: quoted.tcb }) };
  let bound = false;
  try {
    bound = bytesEqual(hexToBytes(quoted.quote.body.reportData), agentReportData(body.agent));
  } catch {
    bound = false;
  }
  checks.keyBinding = bound;
  if (!bound) {
    return fail(
      'KEY_BINDING',
      `the quote binds report data ${quoted.quote.body.reportData.slice(0, 16)}…, ` +
        `not agent ${body.agent.agentId} with this key`,
      checks,
      quoted.tcb,
    );
  }
  const simulatorRoot = quoted.root === 'simulator';
  if (simulatorRoot !== body.simulator) {
    return fail(
      'SIMULATOR_MARK',
      body.simulator
        ? `the receipt is marked simulator but its quote chains to the ${quoted.root} root`
        : "the receipt is not marked simulator but its quote chains to the simulator's root",
      checks,
      quoted.tcb,
    );
  }
  let app: DstackAppInfo | undefined;
  if (expected) {
    const code = checkCode(quoted.quote, expected, eventLog);
    checks.measurements = code.ok;
    if (!code.ok) return fail(code.failure, code.message, checks, quoted.tcb);
    app = code.app;
  }
  return {
    valid: true,
    receipt,
    checks,
    root: quoted.root,
    hardware: quoted.root === 'intel' && !body.simulator,
    simulator: body.simulator,
    fullyVerified: quoted.tcb !== undefined,
    ...(quoted.tcb && { tcb: quoted.tcb }),
    quote: quoted.quote,
    ...(app && { app }),
  };
}
