import { parseTdxQuote } from './parse-tdx-quote';

function u16(value: number) {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16LE(value);
  return buffer;
}

function u32(value: number) {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
}

/** Re-encodes a quote with another PCK certificate chain, keeping every signature as it was (tests only). */
export function withCertificateChain(quote: string, pems: readonly string[]): string {
  const parsed = parseTdxQuote(quote);
  const { quoteSignature, attestationKey, qeReport, qeReportSignature, qeAuthData } =
    parsed.signature;
  const chain = Buffer.from(`${pems.join('')}\0`);
  const inner = Buffer.concat([
    qeReport,
    qeReportSignature,
    u16(qeAuthData.length),
    qeAuthData,
    u16(5),
    u32(chain.length),
    chain,
  ]);
  const signature = Buffer.concat([
    quoteSignature,
    attestationKey,
    u16(6),
    u32(inner.length),
    inner,
  ]);
  return Buffer.concat([parsed.signedBytes, u32(signature.length), signature]).toString('base64');
}

/** Flips the lowest bit of one byte of a base64 quote. */
export function flipByte(quote: string, offset: number): string {
  const bytes = Buffer.from(quote, 'base64');
  bytes[offset]! ^= 0x01;
  return bytes.toString('base64');
}
