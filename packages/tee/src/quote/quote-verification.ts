import type { TdxCollateral } from '../collateral/collateral';
import type { TcbEvaluation, TcbStatus } from '../collateral/tcb-evaluation';
import type { DstackAppInfo } from '../event-log/dstack-app-info';
import type { ReplayedEvent } from '../event-log/replay-event-log';
import type { TeeEvent } from '../event-log/tee-event';
import type { MeasurementPolicy } from '../policy/measurement-policy';
import type { TdxQuote } from './tdx-quote';

/** Which check a quote failed, from the outside in. */
export type QuoteFailure =
  /** Not a TDX v4/v5 ECDSA quote, or truncated. */
  | 'FORMAT'
  /** The options themselves are invalid (`now` not a date, an extra root not a certificate). */
  | 'OPTIONS'
  /** The inner certification data is not a PCK certificate chain (type 5). */
  | 'CERTIFICATION_DATA'
  /** Bytes smuggled in beside the chain: after it in the outer certification data, or between or after its PEM blocks. */
  | 'CERTIFICATION_SIZE'
  /** A certificate is unparsable, expired, not yet valid, or not signed by the next one. */
  | 'CERTIFICATE_CHAIN'
  /**
   * The PCK chain is not Intel's shape (Intel QVL's `STATUS_UNSUPPORTED_PCK_CERT_FORMAT`): under Intel's root
   * exactly three certificates, PCK leaf, platform or processor CA and the root itself; under any root, no more
   * than one CA between the leaf and the root.
   */
  | 'PCK_CERT_UNSUPPORTED_FORMAT'
  /** The chain does not end at a pinned root (Intel's, or the simulator's when allowed). */
  | 'UNTRUSTED_ROOT'
  /** The QE report is not signed by the PCK leaf. */
  | 'QE_REPORT_SIGNATURE'
  /** The QE report does not vouch for this attestation key. */
  | 'QE_REPORT_BINDING'
  /** The upper half of the QE report data is not zero, as Intel's QE leaves it. */
  | 'QE_REPORT_DATA'
  /** The QE is not Intel's TD quoting enclave (MRSIGNER, ISVPRODID, or the collateral's QE identity). */
  | 'QE_IDENTITY'
  /** Header and TD report are not signed by the attestation key (the quote was altered). */
  | 'QUOTE_SIGNATURE'
  /** The header names another QE vendor than Intel. */
  | 'QE_VENDOR'
  /** Collateral is malformed, or its certificates do not chain to the pinned root. */
  | 'COLLATERAL_FORMAT'
  /** A TCB info, QE identity or CRL signature does not verify. */
  | 'COLLATERAL_SIGNATURE'
  /** Collateral is not valid at the verification time (issued later, or past its next update). */
  | 'COLLATERAL_EXPIRED'
  /** Collateral is for another platform (FMSPC, PCE id, TEE type) or another CA. */
  | 'COLLATERAL_MISMATCH'
  /** The PCK certificate, or a CA above it, is on a CRL. */
  | 'REVOKED'
  /** No TCB level of the collateral matches the platform (it is older than anything Intel lists). */
  | 'TCB_NOT_SUPPORTED'
  /** The TCB status is not one the policy accepts (`Revoked` is never accepted). */
  | 'TCB_STATUS'
  /** The TD runs in debug mode and the policy forbids it. */
  | 'DEBUG_TD'
  /** TDATTRIBUTES has SEPT_VE_DISABLE clear or a reserved bit set (refused unless `allowUnsafeTdAttributes`). */
  | 'TD_ATTRIBUTES'
  /** TD 1.5: a service TD is bound (mrServiceTd not zero) and `allowServiceTd` is not set. */
  | 'SERVICE_TD'
  /** The QE, PCE or TEE TCB SVN is below the policy's minimum. */
  | 'MINIMUM_SVN'
  /** The quote is genuine but binds other data than expected. */
  | 'REPORT_DATA'
  /** A measurement (MRTD, RTMR, mrConfigId, attributes, XFAM) differs from the policy. */
  | 'MEASUREMENT'
  /** The event log does not replay to the quote's RTMR, or lacks what the policy requires. */
  | 'EVENT_LOG'
  /**
   * The event log names an app fact (app id, compose hash, instance id, key provider, OS image hash) twice
   * before `system-ready`: dstack reads the last, so the log names no one app.
   */
  | 'EVENT_LOG_DUPLICATE';

/** The outcome of a verification: the parsed quote and its trust anchor, or the first failed check. */
export type QuoteVerification =
  | {
      valid: true;
      quote: TdxQuote;
      root: 'intel' | 'simulator' | 'custom';
      /** The PCK certificate's PPID (hex), which identifies the platform; absent when the certificate has none. */
      ppid?: string;
      /** TCB status, advisories and dates; present when collateral was given. */
      tcb?: TcbEvaluation;
      /** The replayed event log and the dstack app it names; present when the policy checked it. */
      eventLog?: { events: ReplayedEvent[]; app: DstackAppInfo };
    }
  | {
      valid: false;
      failure: QuoteFailure;
      message: string;
      /**
       * With `TCB_STATUS`: the evaluation that was refused (`tcb.status`, `tcb.advisoryIds`), so a caller reads
       * the status from a field, not from the message.
       */
      tcb?: TcbEvaluation;
    };

/** Policy of {@link verifyQuote}. The defaults are the production policy. */
export interface VerifyQuoteOptions {
  /** Also trust Parley's simulator root (development only; a simulator quote proves nothing). */
  allowSimulator?: boolean;
  /** Extra trusted roots (PEM), for private test PKIs only; results name them `custom`. */
  extraRoots?: readonly string[];
  /** Accept a TD with the DEBUG attribute (its memory is open to the host). */
  allowDebug?: boolean;
  /** The time certificates and collateral must be valid at (default: now). */
  now?: Date | number;
  /** When set, the quote's 64-byte report data must equal it. */
  expectedReportData?: Uint8Array;
  /** Intel collateral (see `parseCollateral`); with it the result carries the TCB status. */
  collateral?: TdxCollateral;
  /**
   * TCB statuses to accept when collateral is given (default: `UpToDate` only; widen it knowingly, e.g. with
   * `SWHardeningNeeded` or `TDRelaunchAdvised`). `Revoked` is never accepted.
   */
  acceptedTcbStatuses?: readonly TcbStatus[];
  /**
   * Soft expiry: collateral (TCB info, QE identity, CRL) outside its dates does not fail the verification but
   * is listed in `tcb.collateralExpired`. Signatures, chains and revocation are still checked. Default: fail
   * with `COLLATERAL_EXPIRED`.
   */
  allowExpiredCollateral?: boolean;
  /** Accept TDATTRIBUTES without SEPT_VE_DISABLE or with reserved bits set (default: refused, as dcap-qvl does). */
  allowUnsafeTdAttributes?: boolean;
  /** Accept a TD 1.5 quote bound to a service TD (mrServiceTd not zero); default: refused. */
  allowServiceTd?: boolean;
  /**
   * Minimum SVNs: the QE's ISVSVN, the PCE SVN (from the PCK certificate) and the TEE TCB SVN (16 bytes hex,
   * compared byte by byte).
   */
  minimumSvn?: { qe?: number; pce?: number; teeTcbSvn?: string };
  /** Expected measurements (MRTD, RTMRs, mrConfigId, attributes, app via the event log). */
  measurements?: MeasurementPolicy;
  /** The event log served with the quote (`eventLog` of `GET /api/tee/agents`), for `measurements.eventLog`. */
  eventLog?: readonly TeeEvent[];
}

/** Shorthand for a failed verification; `tcb` is kept when given (a refused TCB status). */
export function failed(
  failure: QuoteFailure,
  message: string,
  tcb?: TcbEvaluation,
): QuoteVerification {
  return { valid: false, failure, message, ...(tcb && { tcb }) };
}
