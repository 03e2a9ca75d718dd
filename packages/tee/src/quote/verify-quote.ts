import { bytesEqual, hexToBytes } from '../bytes';
import { failureOf } from '../collateral/collateral-error';
import { evaluateCollateral } from '../collateral/evaluate-collateral';
import type { X509Certificate } from 'node:crypto';
import { certificateFields } from '../collateral/certificate-fields';
import { parseSgxExtensions, SGX_EXTENSION_OID } from '../collateral/sgx-extensions';
import type { TcbEvaluation, TcbStatus } from '../collateral/tcb-evaluation';
import { checkMeasurements } from '../policy/check-measurements';
import { checkPckChainLength, checkPckChainShape } from './check-pck-chain';
import { parseTdxQuote } from './parse-tdx-quote';
import { anchorsFor } from './pinned-anchors';
import { failed, type QuoteVerification, type VerifyQuoteOptions } from './quote-verification';
import type { TdxQuote } from './tdx-quote';
import { TDX_QUOTE } from './tdx-quote-layout';
import { type TrustAnchor, verifyCertificateChain } from './verify-certificate-chain';
import { verifyQeReport } from './verify-qe-report';
import { verifyRawP256 } from './verify-raw-p256';

/** The PPID of a PCK certificate, or undefined (a simulator or private PCK may carry no SGX extension). */
function ppidOf(leaf: X509Certificate): string | undefined {
  try {
    const { ppid } = parseSgxExtensions(
      certificateFields(leaf.raw).extensions.get(SGX_EXTENSION_OID),
    );
    return ppid.length === 32 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** The TCB statuses accepted unless the caller widens them: only a platform Intel calls up to date. */
export const DEFAULT_TCB_STATUSES: readonly TcbStatus[] = ['UpToDate'];

function checkCertificationData(quote: TdxQuote): QuoteVerification | undefined {
  const { innerType, outerTrailingBytes, chainExtraBytes, signatureTrailingBytes } =
    quote.certification;
  if (innerType !== TDX_QUOTE.certificationDataPckChain) {
    return failed('CERTIFICATION_DATA', `inner certification data type ${innerType} is not 5`);
  }
  if (outerTrailingBytes !== 0) {
    return failed(
      'CERTIFICATION_SIZE',
      `the certification data declares ${outerTrailingBytes} bytes more than it holds`,
    );
  }
  if (chainExtraBytes !== 0) {
    return failed(
      'CERTIFICATION_SIZE',
      `the PCK certification data holds ${chainExtraBytes} bytes beside the certificates`,
    );
  }
  if (signatureTrailingBytes !== 0) {
    return failed(
      'CERTIFICATION_SIZE',
      `the signature data holds ${signatureTrailingBytes} bytes after the certification data`,
    );
  }
  return undefined;
}

/**
 * TDATTRIBUTES (little-endian bytes) as dcap-qvl and Intel's guidance want them: bits 1-7 (TUD), 8-27 and 29
 * (SEC) and 32-62 (OTHER) are reserved and clear, bit 28 SEPT_VE_DISABLE is set. Bits 0 (DEBUG), 30 (PKS),
 * 31 (KL) and 63 (PERFMON) are features, judged elsewhere or allowed.
 */
const RESERVED_ATTRIBUTES = [0xfe, 0xff, 0xff, 0x2f, 0x7f, 0xff, 0xff, 0x7f];
const SEPT_VE_DISABLE = { byte: 3, bit: 0x10 };

function checkAttributes(
  quote: TdxQuote,
  options: VerifyQuoteOptions,
): QuoteVerification | undefined {
  if (options.allowUnsafeTdAttributes) return undefined;
  const attributes = hexToBytes(quote.body.tdAttributes);
  if (attributes.some((byte, index) => (byte & RESERVED_ATTRIBUTES[index]!) !== 0)) {
    return failed('TD_ATTRIBUTES', `TDATTRIBUTES ${quote.body.tdAttributes} has reserved bits set`);
  }
  if ((attributes[SEPT_VE_DISABLE.byte]! & SEPT_VE_DISABLE.bit) === 0) {
    return failed(
      'TD_ATTRIBUTES',
      'SEPT_VE_DISABLE is clear: the TD could be sent #VE on EPT violations (a known attack surface)',
    );
  }
  return undefined;
}

function checkMinimumSvn(
  quote: TdxQuote,
  pckLeaf: X509Certificate,
  minimum: NonNullable<VerifyQuoteOptions['minimumSvn']>,
): QuoteVerification | undefined {
  if (minimum.qe !== undefined && quote.qe.isvSvn < minimum.qe) {
    return failed('MINIMUM_SVN', `QE SVN ${quote.qe.isvSvn} is below ${minimum.qe}`);
  }
  if (minimum.pce !== undefined) {
    const { pceSvn } = parseSgxExtensions(
      certificateFields(pckLeaf.raw).extensions.get(SGX_EXTENSION_OID),
    );
    if (pceSvn < minimum.pce)
      return failed('MINIMUM_SVN', `PCE SVN ${pceSvn} is below ${minimum.pce}`);
  }
  if (minimum.teeTcbSvn !== undefined) {
    const actual = hexToBytes(quote.body.teeTcbSvn);
    const wanted = hexToBytes(minimum.teeTcbSvn, 'minimumSvn.teeTcbSvn');
    if (wanted.length !== actual.length || wanted.some((svn, index) => actual[index]! < svn)) {
      return failed(
        'MINIMUM_SVN',
        `TEE TCB SVN ${quote.body.teeTcbSvn} is below ${minimum.teeTcbSvn.toLowerCase()}`,
      );
    }
  }
  return undefined;
}

function checkPolicy(quote: TdxQuote, options: VerifyQuoteOptions): QuoteVerification | undefined {
  if (quote.debug && !options.allowDebug) {
    return failed('DEBUG_TD', 'the TD runs in debug mode; its memory is readable by the host');
  }
  const attributes = checkAttributes(quote, options);
  if (attributes) return attributes;
  const serviceTd = quote.body.mrServiceTd;
  if (serviceTd && /[^0]/.test(serviceTd) && !options.allowServiceTd) {
    return failed('SERVICE_TD', 'the TD is bound to a service TD (mrServiceTd is not zero)');
  }
  const expected = options.expectedReportData;
  if (expected && !bytesEqual(hexToBytes(quote.body.reportData), expected)) {
    return failed('REPORT_DATA', 'the quote binds other report data than expected');
  }
  return undefined;
}

/**
 * Verifies a TDX quote (v4 or v5) offline, in order: structure and certification data; the PCK certificate
 * chain up to a pinned root (Intel SGX Root CA; the simulator root only with `allowSimulator`); the QE report
 * (signed by the PCK leaf, binding the attestation key, upper report data zero, Intel's TD QE identity); the
 * attestation key's signature over header and TD report; Intel's QE vendor id; with `collateral`, revocation
 * and TCB status; then the debug policy, the expected report data and the measurement policy (with the event
 * log replayed into RTMR3).
 *
 * Without collateral, revocation and TCB level are not checked: a genuine quote from a platform with known
 * vulnerabilities verifies. Pass collateral (see `parseDcapQvlCollateral`, `collateralFromPcs`) to know.
 *
 * @example
 * const result = verifyQuote(agent.attestation, { collateral });
 * if (!result.valid) throw new Error(`${result.failure}: ${result.message}`);
 * console.log(result.tcb?.status, result.quote.body.mrTd);
 */
export function verifyQuote(
  quote: Uint8Array | string,
  options: VerifyQuoteOptions = {},
): QuoteVerification {
  try {
    return verifyQuoteOrThrow(quote, options);
  } catch (error) {
    // Every check above returns its failure; this only catches what a hostile input could still make a
    // dependency throw, so that no input makes verification throw instead of fail.
    return failed(failureOf(error) ?? 'FORMAT', `unreadable input: ${(error as Error).message}`);
  }
}

/** The verification time, or undefined when `now` is not a valid date. */
function timeOf(now: VerifyQuoteOptions['now']): Date | undefined {
  const time = new Date(now ?? Date.now());
  return Number.isNaN(time.getTime()) ? undefined : time;
}

function verifyQuoteOrThrow(
  quote: Uint8Array | string,
  options: VerifyQuoteOptions,
): QuoteVerification {
  if (typeof options !== 'object' || options === null) {
    return failed('OPTIONS', 'the options are not an object');
  }
  const now = timeOf(options.now);
  if (!now) return failed('OPTIONS', '`now` is not a valid date');
  let anchors: TrustAnchor[];
  try {
    anchors = anchorsFor(options);
  } catch {
    return failed('OPTIONS', 'an extra root is not a PEM certificate');
  }
  let parsed: TdxQuote;
  try {
    parsed = parseTdxQuote(quote);
  } catch (error) {
    return failed('FORMAT', (error as Error).message);
  }
  const structure = checkCertificationData(parsed);
  if (structure) return structure;
  const tooLong = checkPckChainLength(parsed.signature.pckCertificateChain);
  if (tooLong) return tooLong;
  const chain = verifyCertificateChain(parsed.signature.pckCertificateChain, anchors, now);
  if (!chain.valid) return failed(chain.failure, chain.message);
  const shape = checkPckChainShape(chain);
  if (shape) return shape;
  const qeFailure = verifyQeReport(parsed, chain.leaf);
  if (qeFailure) return qeFailure;
  const { quoteSignature, attestationKey } = parsed.signature;
  if (!verifyRawP256(quoteSignature, parsed.signedBytes, attestationKey)) {
    return failed('QUOTE_SIGNATURE', 'the quote is not signed by its attestation key');
  }
  if (parsed.header.qeVendorId !== TDX_QUOTE.intelQeVendorId) {
    return failed('QE_VENDOR', `QE vendor ${parsed.header.qeVendorId} is not Intel`);
  }
  let tcb: TcbEvaluation | undefined;
  if (options.collateral) {
    try {
      tcb = evaluateCollateral({
        quote: parsed,
        pckChain: chain.certificates,
        anchor: { name: chain.anchor, certificate: chain.root },
        collateral: options.collateral,
        now,
        ...(options.allowExpiredCollateral && { allowExpired: true }),
      });
    } catch (error) {
      // A collateral check names its failure; anything else the collateral made a parser throw is its format.
      return failed(failureOf(error) ?? 'COLLATERAL_FORMAT', (error as Error).message);
    }
    const accepted = options.acceptedTcbStatuses ?? DEFAULT_TCB_STATUSES;
    if (tcb.status === 'Revoked' || !accepted.includes(tcb.status)) {
      return failed('TCB_STATUS', `TCB status ${tcb.status} is not accepted`, tcb);
    }
  }
  const policy = checkPolicy(parsed, options);
  if (policy) return policy;
  const minimum = options.minimumSvn && checkMinimumSvn(parsed, chain.leaf, options.minimumSvn);
  if (minimum) return minimum;
  const measured = options.measurements
    ? checkMeasurements(parsed, options.measurements, options.eventLog)
    : undefined;
  if (measured && !measured.valid) return failed(measured.failure, measured.message);
  const eventLog = measured?.eventLog && {
    events: measured.eventLog.replay.events,
    app: measured.eventLog.app,
  };
  const ppid = ppidOf(chain.leaf);
  return {
    valid: true,
    quote: parsed,
    root: chain.anchor,
    ...(ppid && { ppid }),
    ...(tcb && { tcb }),
    ...(eventLog && { eventLog }),
  };
}
