import { type X509Certificate, verify as verifySignature } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesEqual } from '../bytes';
import { failed, type QuoteVerification } from './quote-verification';
import type { TdxQuote } from './tdx-quote';
import { TDX_QUOTE } from './tdx-quote-layout';

/**
 * Checks the quoting enclave's report: signed by the PCK leaf; its report data is
 * `sha256(attestation key || QE auth data)` followed by 32 zero bytes; and it is Intel's TD quoting enclave
 * (MRSIGNER and ISVPRODID pinned, so a quote from any other enclave the PCK key signed is refused offline).
 */
export function verifyQeReport(
  quote: TdxQuote,
  leaf: X509Certificate,
): QuoteVerification | undefined {
  const { qeReport, qeReportSignature, attestationKey, qeAuthData } = quote.signature;
  const signedByPck = verifySignature(
    'sha256',
    qeReport,
    { key: leaf.publicKey, dsaEncoding: 'ieee-p1363' },
    qeReportSignature,
  );
  if (!signedByPck) {
    return failed('QE_REPORT_SIGNATURE', 'the QE report is not signed by the PCK certificate');
  }
  const expected = sha256(new Uint8Array([...attestationKey, ...qeAuthData]));
  const offset = TDX_QUOTE.qeReportDataOffset;
  if (!bytesEqual(qeReport.subarray(offset, offset + 32), expected)) {
    return failed('QE_REPORT_BINDING', 'the QE report does not bind the attestation key');
  }
  if (qeReport.subarray(offset + 32, offset + 64).some((byte) => byte !== 0)) {
    return failed('QE_REPORT_DATA', 'the upper half of the QE report data is not zero');
  }
  const { mrSigner, isvProdId } = TDX_QUOTE.intelTdQe;
  if (quote.qe.mrSigner !== mrSigner || quote.qe.isvProdId !== isvProdId) {
    return failed(
      'QE_IDENTITY',
      `the QE (MRSIGNER ${quote.qe.mrSigner}, ISVPRODID ${quote.qe.isvProdId}) is not Intel's TD quoting enclave`,
    );
  }
  return undefined;
}
