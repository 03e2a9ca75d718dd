import type { TdxQuote } from './tdx-quote';

/** Which check a quote failed, from the outside in. */
export type QuoteFailure =
  /** Not a TDX v4 ECDSA quote, or truncated. */
  | 'FORMAT'
  /** A certificate is unparsable, expired, not yet valid, or not signed by the next one. */
  | 'CERTIFICATE_CHAIN'
  /** The chain does not end at a pinned root (Intel's, or the simulator's when allowed). */
  | 'UNTRUSTED_ROOT'
  /** The QE report is not signed by the PCK leaf. */
  | 'QE_REPORT_SIGNATURE'
  /** The QE report does not vouch for this attestation key. */
  | 'QE_REPORT_BINDING'
  /** Header and TD report are not signed by the attestation key (the quote was altered). */
  | 'QUOTE_SIGNATURE'
  /** The TD runs in debug mode and the policy forbids it. */
  | 'DEBUG_TD'
  /** The quote is genuine but binds other data than expected. */
  | 'REPORT_DATA';

/** The outcome of a verification: the parsed quote and its trust anchor, or the first failed check. */
export type QuoteVerification =
  | { valid: true; quote: TdxQuote; root: 'intel' | 'simulator' }
  | { valid: false; failure: QuoteFailure; message: string };

/** Policy of {@link verifyQuote}. The defaults are the production policy. */
export interface VerifyQuoteOptions {
  /** Also trust Parley's simulator root (development only; a simulator quote proves nothing). */
  allowSimulator?: boolean;
  /** Accept a TD with the DEBUG attribute (its memory is open to the host). */
  allowDebug?: boolean;
  /** The time certificates must be valid at (default: now). */
  now?: Date | number;
  /** When set, the quote's 64-byte report data must equal it. */
  expectedReportData?: Uint8Array;
}

/** Shorthand for a failed verification. */
export function failed(failure: QuoteFailure, message: string): QuoteVerification {
  return { valid: false, failure, message };
}
