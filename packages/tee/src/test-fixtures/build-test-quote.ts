import { type KeyObject, sign } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { TDX_QUOTE } from '../quote/tdx-quote-layout';

/** What a test quote is made of; every field has a genuine-looking default. Tests only. */
export interface TestQuoteInput {
  pckKey: KeyObject;
  /** PEM chain embedded in the quote, leaf first. */
  chain: readonly string[];
  version?: 4 | 5;
  /** Fills TD report fields (hex) at their layout offsets. */
  body?: Partial<Record<keyof typeof TDX_QUOTE.body | 'teeTcbSvn2' | 'mrServiceTd', string>>;
  qeVendorId?: string;
  qeMrSigner?: string;
  qeIsvProdId?: number;
  qeIsvSvn?: number;
  /** Sets byte 40 of the QE report data (upper half), which Intel's QE leaves zero. */
  qeReportDataUpperByte?: number;
  innerCertificationType?: number;
  /** Bytes added inside the outer certification data after the chain. */
  outerPadding?: number;
}

const u16 = (value: number) => Buffer.from([value & 0xff, value >> 8]);
const u32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
};
const ATTESTATION_KEY = p256.utils.randomSecretKey();

function body(input: TestQuoteInput): Buffer {
  const td15 = input.version === 5;
  const report = Buffer.alloc(td15 ? 648 : 584);
  const layout = { ...TDX_QUOTE.body, ...TDX_QUOTE.bodyTd15 };
  report.set([3, td15 ? 1 : 0, 4], 0);
  // A production TD: SEPT_VE_DISABLE (bit 28) set, DEBUG and reserved bits clear, unless the test says otherwise.
  const fields = { tdAttributes: '0000001000000000', ...input.body };
  for (const [name, hex] of Object.entries(fields)) {
    report.set(Buffer.from(hex, 'hex'), layout[name as keyof typeof layout][0]);
  }
  return report;
}

function qeReport(input: TestQuoteInput, attestationKey: Uint8Array, authData: Uint8Array) {
  const report = Buffer.alloc(384);
  report.set([0x15, 0, 0, 0, 0, 0, 0, 0, 0xe7], 48);
  report.set(Buffer.from(input.qeMrSigner ?? TDX_QUOTE.intelTdQe.mrSigner, 'hex'), 128);
  report.writeUInt16LE(input.qeIsvProdId ?? TDX_QUOTE.intelTdQe.isvProdId, 256);
  report.writeUInt16LE(input.qeIsvSvn ?? 4, 258);
  report.set(sha256(new Uint8Array([...attestationKey, ...authData])), 320);
  if (input.qeReportDataUpperByte) report[360] = input.qeReportDataUpperByte;
  return report;
}

/** Builds a TDX quote signed for real with the given PCK key and a random attestation key. */
export function buildTestQuote(input: TestQuoteInput): Buffer {
  const version = input.version ?? 4;
  const header = Buffer.concat([
    u16(version),
    u16(2),
    u32(0x81),
    Buffer.alloc(4),
    Buffer.from(input.qeVendorId ?? TDX_QUOTE.intelQeVendorId, 'hex'),
    Buffer.alloc(20),
  ]);
  const report = body(input);
  const descriptor = version === 5 ? Buffer.concat([u16(3), u32(report.length)]) : Buffer.alloc(0);
  const signed = Buffer.concat([header, descriptor, report]);
  const attestationKey = p256.getPublicKey(ATTESTATION_KEY, false).subarray(1);
  const authData = Buffer.alloc(32, 7);
  const qe = qeReport(input, attestationKey, authData);
  const qeSignature = sign('sha256', qe, { key: input.pckKey, dsaEncoding: 'ieee-p1363' });
  const chain = Buffer.from(`${input.chain.join('')}\0`);
  const certification = Buffer.concat([
    qe,
    qeSignature,
    u16(authData.length),
    authData,
    u16(input.innerCertificationType ?? 5),
    u32(chain.length),
    chain,
    Buffer.alloc(input.outerPadding ?? 0),
  ]);
  const signatureData = Buffer.concat([
    p256.sign(signed, ATTESTATION_KEY),
    attestationKey,
    u16(6),
    u32(certification.length),
    certification,
  ]);
  return Buffer.concat([signed, u32(signatureData.length), signatureData]);
}
