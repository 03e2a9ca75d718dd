import { base64ToBytes, bytesToHex } from '../bytes';
import { createByteReader, type ByteReader } from './byte-reader';
import { parseSignatureData } from './parse-signature-data';
import { isQuoteFormatError, quoteFormatError } from './quote-format-error';
import type { TdxQuote, TdxQuoteHeader } from './tdx-quote';
import { TDX_QUOTE } from './tdx-quote-layout';

function parseHeader(reader: ByteReader): TdxQuoteHeader {
  const version = reader.u16('header');
  const attestationKeyType = reader.u16('header');
  const teeType = reader.u32('header');
  reader.take(4, 'header');
  const qeVendorId = bytesToHex(reader.take(16, 'header'));
  const userData = bytesToHex(reader.take(20, 'header'));
  if (!(TDX_QUOTE.versions as readonly number[]).includes(version)) {
    throw quoteFormatError(`version ${version} is not supported (4 or 5)`);
  }
  if (teeType !== TDX_QUOTE.teeTypeTdx) throw quoteFormatError('TEE type is not TDX');
  if (attestationKeyType !== TDX_QUOTE.attestationKeyTypeEcdsaP256) {
    throw quoteFormatError('attestation key type is not ECDSA P-256');
  }
  return { version, attestationKeyType, teeType, qeVendorId, userData };
}

/** v4: the TD 1.0 report follows the header. v5: a descriptor names the body type and size first. */
function readBody(reader: ByteReader, version: number): { bodyType: number; body: Uint8Array } {
  if (version === 4) {
    const length = TDX_QUOTE.bodyTypes[TDX_QUOTE.bodyTypeTd10]!;
    return { bodyType: TDX_QUOTE.bodyTypeTd10, body: reader.take(length, 'TD report') };
  }
  const bodyType = reader.u16('body descriptor');
  const size = reader.u32('body descriptor');
  const expected = TDX_QUOTE.bodyTypes[bodyType];
  if (expected === undefined) throw quoteFormatError(`body type ${bodyType} is not a TD report`);
  if (size !== expected) {
    throw quoteFormatError(`body type ${bodyType} has size ${size}, expected ${expected}`);
  }
  return { bodyType, body: reader.take(size, 'TD report') };
}

function decodeBody(body: Uint8Array, bodyType: number): TdxQuote['body'] {
  const fields: Record<string, string> = {};
  const layout =
    bodyType === TDX_QUOTE.bodyTypeTd15
      ? { ...TDX_QUOTE.body, ...TDX_QUOTE.bodyTd15 }
      : TDX_QUOTE.body;
  for (const [name, [start, length]] of Object.entries(layout)) {
    fields[name] = bytesToHex(body.subarray(start, start + length));
  }
  return fields as TdxQuote['body'];
}

function parseBytes(bytes: Uint8Array): TdxQuote {
  const reader = createByteReader(bytes);
  const header = parseHeader(reader);
  const { bodyType, body } = readBody(reader, header.version);
  const signedBytes = bytes.subarray(0, reader.offset);
  // Zero padding may follow the signature data (real quotes are often served in a fixed-size buffer).
  const signatureData = reader.take(reader.u32('signature data size'), 'signature data');
  const { signature, qe, certification } = parseSignatureData(signatureData);
  certification.quoteTrailingBytes = reader.remaining;
  // TDATTRIBUTES bit 0 is TUD.DEBUG: set, the host can read and change the TD's memory.
  const debug = (body[TDX_QUOTE.body.tdAttributes[0]]! & 0x01) === 0x01;
  return {
    header,
    bodyType,
    body: decodeBody(body, bodyType),
    debug,
    signedBytes,
    qe,
    certification,
    signature,
  };
}

/**
 * Parses an Intel TDX quote v4 or v5 (as bytes, or base64 as Parley serves it): header, TD report (1.0 or
 * 1.5), the QE report and the certification data with the PCK certificate chain. Parsing checks structure only;
 * {@link verifyQuote} checks signatures and identities.
 *
 * @throws ParleyError `BAD_REQUEST` with `details.failure` `FORMAT` (see `isQuoteFormatError`) when the quote is
 * truncated, not base64, or not a TDX ECDSA quote; never any other error.
 * @example
 * const { body, header } = parseTdxQuote(agent.attestation);
 * console.log(header.version, body.mrTd, body.reportData);
 */
export function parseTdxQuote(quote: Uint8Array | string): TdxQuote {
  try {
    const bytes = typeof quote === 'string' ? base64ToBytes(quote, 'quote') : quote;
    return parseBytes(bytes);
  } catch (error) {
    if (isQuoteFormatError(error)) throw error;
    throw quoteFormatError((error as Error).message);
  }
}
