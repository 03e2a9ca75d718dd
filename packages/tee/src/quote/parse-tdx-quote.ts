import { ParleyError } from '@parley/core';
import { base64ToBytes, bytesToHex } from '../bytes';
import type { TdxQuote } from './tdx-quote';
import { TDX_QUOTE, type TdReportField } from './tdx-quote-layout';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function malformed(reason: string): ParleyError {
  return new ParleyError('BAD_REQUEST', `Malformed TDX quote: ${reason}`);
}

/** A bounds-checked little-endian reader, so a truncated quote is an error, never an out-of-range read. */
function createReader(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  const need = (length: number, what: string) => {
    if (offset + length > bytes.length) throw malformed(`truncated in ${what}`);
  };
  return {
    get offset() {
      return offset;
    },
    take(length: number, what: string): Uint8Array {
      need(length, what);
      offset += length;
      return bytes.subarray(offset - length, offset);
    },
    u16(what: string): number {
      need(2, what);
      offset += 2;
      return view.getUint16(offset - 2, true);
    },
    u32(what: string): number {
      need(4, what);
      offset += 4;
      return view.getUint32(offset - 4, true);
    },
  };
}

function parseBody(body: Uint8Array): Record<TdReportField, string> {
  const fields = {} as Record<TdReportField, string>;
  for (const [name, [start, length]] of Object.entries(TDX_QUOTE.body)) {
    fields[name as TdReportField] = bytesToHex(body.subarray(start, start + length));
  }
  return fields;
}

function parsePemChain(data: Uint8Array): string[] {
  // Intel ends the chain with a NUL byte; the PEM regex ignores it and anything else between blocks.
  const chain = new TextDecoder().decode(data).match(PEM_BLOCK) ?? [];
  if (chain.length === 0) throw malformed('the PCK certificate chain holds no certificate');
  return chain;
}

function parseSignatureData(signature: Uint8Array): TdxQuote['signature'] {
  const reader = createReader(signature);
  const quoteSignature = reader.take(TDX_QUOTE.ecdsaSignatureLength, 'quote signature');
  const attestationKey = reader.take(TDX_QUOTE.ecdsaPublicKeyLength, 'attestation key');
  const outerType = reader.u16('certification data type');
  if (outerType !== TDX_QUOTE.certificationDataQeReport) {
    throw malformed(`certification data type ${outerType} is not supported (expected 6)`);
  }
  const outer = createReader(
    reader.take(reader.u32('certification data size'), 'certification data'),
  );
  const qeReport = outer.take(TDX_QUOTE.qeReportLength, 'QE report');
  const qeReportSignature = outer.take(TDX_QUOTE.ecdsaSignatureLength, 'QE report signature');
  const qeAuthData = outer.take(outer.u16('QE auth data size'), 'QE auth data');
  const innerType = outer.u16('PCK certification data type');
  if (innerType !== TDX_QUOTE.certificationDataPckChain) {
    throw malformed(`PCK certification data type ${innerType} is not supported (expected 5)`);
  }
  const chain = outer.take(outer.u32('PCK chain size'), 'PCK certificate chain');
  return {
    quoteSignature,
    attestationKey,
    qeReport,
    qeReportSignature,
    qeAuthData,
    pckCertificateChain: parsePemChain(chain),
  };
}

/**
 * Parses an Intel TDX quote v4 (as bytes, or base64 as Parley serves it): header, TD report and signature data
 * with the PCK certificate chain. Parsing checks structure only; {@link verifyQuote} checks the signatures.
 *
 * @throws ParleyError `BAD_REQUEST` when the quote is truncated, not base64, or not a TDX v4 ECDSA quote.
 * @example
 * const { body } = parseTdxQuote(agent.attestation);
 * console.log(body.mrTd, body.reportData);
 */
export function parseTdxQuote(quote: Uint8Array | string): TdxQuote {
  const bytes = typeof quote === 'string' ? base64ToBytes(quote, 'quote') : quote;
  const reader = createReader(bytes);
  const header = {
    version: reader.u16('header'),
    attestationKeyType: reader.u16('header'),
    teeType: reader.u32('header'),
    qeVendorId: '',
    userData: '',
  };
  reader.take(4, 'header');
  header.qeVendorId = bytesToHex(reader.take(16, 'header'));
  header.userData = bytesToHex(reader.take(20, 'header'));
  if (header.version !== TDX_QUOTE.version) throw malformed(`version ${header.version} is not 4`);
  if (header.teeType !== TDX_QUOTE.teeTypeTdx) throw malformed('TEE type is not TDX');
  if (header.attestationKeyType !== TDX_QUOTE.attestationKeyTypeEcdsaP256) {
    throw malformed('attestation key type is not ECDSA P-256');
  }
  const body = reader.take(TDX_QUOTE.bodyLength, 'TD report');
  const signedBytes = bytes.subarray(0, reader.offset);
  const signature = parseSignatureData(
    reader.take(reader.u32('signature data size'), 'signature data'),
  );
  const fields = parseBody(body);
  // TDATTRIBUTES bit 0 is TUD.DEBUG: set, the host can read and change the TD's memory.
  const debug = (body[TDX_QUOTE.body.tdAttributes[0]]! & 0x01) === 0x01;
  return { header, body: fields, debug, signedBytes, signature };
}
