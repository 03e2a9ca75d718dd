import { bytesToHex } from '../bytes';
import { createByteReader } from './byte-reader';
import { quoteFormatError } from './quote-format-error';
import type { QeReport, TdxCertificationData, TdxQuote } from './tdx-quote';
import { TDX_QUOTE } from './tdx-quote-layout';

// Strict: only base64 and whitespace between the lines, so a broken END line cannot merge two blocks.
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+?-----END CERTIFICATE-----/g;

/** What the signature data section holds. */
export interface ParsedSignatureData {
  signature: TdxQuote['signature'];
  qe: QeReport;
  certification: TdxCertificationData;
}

/** Decodes the QE's SGX report body. */
export function decodeQeReport(report: Uint8Array): QeReport {
  const field = (name: keyof typeof TDX_QUOTE.qeReport) => {
    const [start, length] = TDX_QUOTE.qeReport[name];
    return report.subarray(start, start + length);
  };
  const u16 = (bytes: Uint8Array) => bytes[0]! | (bytes[1]! << 8);
  return {
    cpuSvn: bytesToHex(field('cpuSvn')),
    miscSelect: bytesToHex(field('miscSelect')),
    attributes: bytesToHex(field('attributes')),
    mrEnclave: bytesToHex(field('mrEnclave')),
    mrSigner: bytesToHex(field('mrSigner')),
    isvProdId: u16(field('isvProdId')),
    isvSvn: u16(field('isvSvn')),
    reportData: bytesToHex(field('reportData')),
  };
}

/**
 * Parses the ECDSA signature data (the same in v4 and v5): quote signature, attestation key, and certification
 * data type 6 holding the QE report, its signature, the QE auth data and the inner certification data. An inner
 * type other than 5 and bytes left in the outer data are recorded, not thrown: the verifier names them.
 */
export function parseSignatureData(data: Uint8Array): ParsedSignatureData {
  const reader = createByteReader(data);
  const quoteSignature = reader.take(TDX_QUOTE.ecdsaSignatureLength, 'quote signature');
  const attestationKey = reader.take(TDX_QUOTE.ecdsaPublicKeyLength, 'attestation key');
  const outerType = reader.u16('certification data type');
  if (outerType !== TDX_QUOTE.certificationDataQeReport) {
    throw quoteFormatError(`certification data type ${outerType} is not supported (expected 6)`);
  }
  const outer = createByteReader(
    reader.take(reader.u32('certification data size'), 'certification data'),
  );
  const qeReport = outer.take(TDX_QUOTE.qeReportLength, 'QE report');
  const qeReportSignature = outer.take(TDX_QUOTE.ecdsaSignatureLength, 'QE report signature');
  const qeAuthData = outer.take(outer.u16('QE auth data size'), 'QE auth data');
  const innerType = outer.u16('PCK certification data type');
  const inner = outer.take(outer.u32('PCK certification data size'), 'PCK certification data');
  const text =
    innerType === TDX_QUOTE.certificationDataPckChain ? new TextDecoder().decode(inner) : '';
  const pckCertificateChain = text.match(PEM_BLOCK) ?? [];
  // Intel ends the chain with a NUL byte; anything else beside the certificates is counted, and refused.
  const chainExtraBytes = text
    .replace(PEM_BLOCK, '')
    .replace(/[\s]+/g, '')
    .replace(/\0+$/, '').length;
  return {
    signature: {
      quoteSignature,
      attestationKey,
      qeReport,
      qeReportSignature,
      qeAuthData,
      pckCertificateChain,
    },
    qe: decodeQeReport(qeReport),
    certification: {
      outerType,
      innerType,
      outerTrailingBytes: outer.remaining,
      chainExtraBytes,
      signatureTrailingBytes: reader.remaining,
      quoteTrailingBytes: 0,
    },
  };
}
