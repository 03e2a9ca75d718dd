import { X509Certificate, verify as verifySignature } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesEqual, hexToBytes } from '../bytes';
import { INTEL_SGX_ROOT_CA_PEM } from '../roots/intel-sgx-root-ca';
import { SIMULATOR_ROOT_CA_PEM } from '../roots/simulator-root-ca';
import { parseTdxQuote } from './parse-tdx-quote';
import type { TdxQuote } from './tdx-quote';
import { TDX_QUOTE } from './tdx-quote-layout';
import { failed, type QuoteVerification, type VerifyQuoteOptions } from './quote-verification';
import { type TrustAnchor, verifyCertificateChain } from './verify-certificate-chain';

let anchors: { intel: TrustAnchor; simulator: TrustAnchor } | undefined;

/** Parsed once, on first use, so importing the package costs nothing. */
function pinnedAnchors() {
  anchors ??= {
    intel: { name: 'intel', certificate: new X509Certificate(INTEL_SGX_ROOT_CA_PEM) },
    simulator: { name: 'simulator', certificate: new X509Certificate(SIMULATOR_ROOT_CA_PEM) },
  };
  return anchors;
}

/** ECDSA P-256 over SHA-256 with a raw (x || y) key, r || s signature; high-S accepted as Intel emits it. */
function verifyRawP256(signature: Uint8Array, message: Uint8Array, rawKey: Uint8Array): boolean {
  try {
    const key = new Uint8Array(65);
    key[0] = 0x04;
    key.set(rawKey, 1);
    return p256.verify(signature, message, key, { lowS: false });
  } catch {
    return false;
  }
}

function verifyQeReport(quote: TdxQuote, leaf: X509Certificate): QuoteVerification | undefined {
  const { qeReport, qeReportSignature, attestationKey, qeAuthData } = quote.signature;
  const signedByPck = verifySignature(
    'sha256',
    qeReport,
    { key: leaf.publicKey, dsaEncoding: 'ieee-p1363' },
    qeReportSignature,
  );
  if (!signedByPck)
    return failed('QE_REPORT_SIGNATURE', 'the QE report is not signed by the PCK certificate');
  const expected = sha256(new Uint8Array([...attestationKey, ...qeAuthData]));
  const offset = TDX_QUOTE.qeReportDataOffset;
  if (!bytesEqual(qeReport.subarray(offset, offset + 32), expected)) {
    return failed('QE_REPORT_BINDING', 'the QE report does not bind the attestation key');
  }
  return undefined;
}

/**
 * Verifies a TDX quote offline, in order: structure; the PCK certificate chain up to a pinned root (Intel SGX
 * Root CA; the simulator root only with `allowSimulator`); the QE report's signature by the PCK leaf; the QE
 * report binding `sha256(attestation key || QE auth data)`; the attestation key's signature over header and TD
 * report; the debug policy; and, when given, the expected report data.
 *
 * It does not fetch Intel collateral, so TCB level and revocation (CRLs, TCB info, QE identity) are not checked.
 *
 * @example
 * const result = verifyQuote(agent.attestation);
 * if (!result.valid) throw new Error(`${result.failure}: ${result.message}`);
 * console.log(result.quote.body.mrTd);
 */
export function verifyQuote(
  quote: Uint8Array | string,
  options: VerifyQuoteOptions = {},
): QuoteVerification {
  let parsed: TdxQuote;
  try {
    parsed = parseTdxQuote(quote);
  } catch (error) {
    return failed('FORMAT', (error as Error).message);
  }
  const { intel, simulator } = pinnedAnchors();
  const now = new Date(options.now ?? Date.now());
  const chain = verifyCertificateChain(
    parsed.signature.pckCertificateChain,
    options.allowSimulator ? [intel, simulator] : [intel],
    now,
  );
  if (!chain.valid) return failed(chain.failure, chain.message);
  const qeFailure = verifyQeReport(parsed, chain.leaf);
  if (qeFailure) return qeFailure;
  const { quoteSignature, attestationKey } = parsed.signature;
  if (!verifyRawP256(quoteSignature, parsed.signedBytes, attestationKey)) {
    return failed('QUOTE_SIGNATURE', 'the quote is not signed by its attestation key');
  }
  if (parsed.debug && !options.allowDebug) {
    return failed('DEBUG_TD', 'the TD runs in debug mode; its memory is readable by the host');
  }
  const expected = options.expectedReportData;
  if (expected && !bytesEqual(hexToBytes(parsed.body.reportData), expected)) {
    return failed('REPORT_DATA', 'the quote binds other report data than expected');
  }
  return { valid: true, quote: parsed, root: chain.anchor };
}
