import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { sha256, sha384 } from '@noble/hashes/sha2.js';
import { SIMULATOR_ROOT_CA_PEM } from '@parley/tee';
import {
  SIMULATOR_PCK_CERTIFICATE_PEM,
  SIMULATOR_PCK_PRIVATE_KEY_PEM,
} from './simulator-certificates';
import type { SimulatorMeasurements } from './simulator-measurements';

/** What goes into one simulated quote. */
export interface SimulatorQuoteInput {
  /** 64 bytes. */
  reportData: Uint8Array;
  measurements: SimulatorMeasurements;
  /** P-256 private key of the simulated quoting enclave's attestation key. */
  attestationKey: Uint8Array;
  /** Sets TDATTRIBUTES.DEBUG, to exercise a verifier's debug policy. */
  debug: boolean;
  /** Quote version: 4 (TD 1.0 report) or 5 (body type 3, TD 1.5 report). Default 4. */
  version?: 4 | 5;
}

const INTEL_QE_VENDOR_ID = Buffer.from('939a7233f79c4ca9940a0db3957f0607', 'hex');
/** Intel's TD quoting enclave identity, which every genuine quote carries (verifiers pin it). */
const INTEL_TD_QE_MRSIGNER = Buffer.from(
  'dc9e2a7c6f948f17474e34a7fc43ed030f7c1563f1babddf6340c82e0e54a8c5',
  'hex',
);
/** A TD 1.5 report: the TD 1.0 fields, then TEE TCB SVN 2 (16) and MRSERVICETD (48). */
const TD15_REPORT_LENGTH = 648;
const QE_AUTH_DATA = Uint8Array.from({ length: 32 }, (_, index) => index);
const TD_REPORT = { mrTd: 136, tdAttributes: 120, xfam: 128, rtmr0: 328, reportData: 520 } as const;

let pckKey: KeyObject | undefined;

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16LE(value);
  return buffer;
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
}

function header(version: 4 | 5): Buffer {
  // version, attestation key type 2 (ECDSA P-256), TEE type 0x81 (TDX), 4 reserved, QE vendor, 20 user data.
  return Buffer.concat([
    u16(version),
    u16(2),
    u32(0x81),
    Buffer.alloc(4),
    INTEL_QE_VENDOR_ID,
    Buffer.alloc(20),
  ]);
}

function tdReport(input: SimulatorQuoteInput, length: number): Buffer {
  const body = Buffer.alloc(length);
  // TEE TCB SVN: module SVN 3, major version 0 (TDX 1.0); a TD 1.5 report says version 1.5 in both SVNs.
  body.set(length === TD15_REPORT_LENGTH ? [3, 1, 2] : [3, 0, 2], 0);
  if (length === TD15_REPORT_LENGTH) body.set([3, 1, 2], 584);
  body.set(sha384(new TextEncoder().encode('parley/dstack-simulator/mrseam')), 16);
  body[TD_REPORT.tdAttributes] = input.debug ? 0x01 : 0x00;
  // SEPT_VE_DISABLE (bit 28), as dstack's TDs set it and verifiers require by default.
  body[TD_REPORT.tdAttributes + 3] = 0x10;
  body.set([0xe7, 0x02, 0x06], TD_REPORT.xfam);
  body.set(input.measurements.mrTd, TD_REPORT.mrTd);
  input.measurements.rtmrs.forEach((rtmr, index) => body.set(rtmr, TD_REPORT.rtmr0 + index * 48));
  body.set(input.reportData, TD_REPORT.reportData);
  return body;
}

/** The QE's own enclave report; its report data vouches for the attestation key, as Intel's QE does. */
function qeReport(attestationPublicKey: Uint8Array): Buffer {
  const report = Buffer.alloc(384);
  report.set([0x15, 0, 0, 0, 0, 0, 0, 0, 0xe7], 48);
  report.set(sha256(new TextEncoder().encode('parley/dstack-simulator/qe-mrenclave')), 64);
  report.set(INTEL_TD_QE_MRSIGNER, 128);
  report.writeUInt16LE(2, 256);
  report.writeUInt16LE(4, 258);
  report.set(sha256(new Uint8Array([...attestationPublicKey, ...QE_AUTH_DATA])), 320);
  return report;
}

function certificationData(attestationPublicKey: Uint8Array): Buffer {
  const report = qeReport(attestationPublicKey);
  pckKey ??= createPrivateKey(SIMULATOR_PCK_PRIVATE_KEY_PEM);
  const reportSignature = sign('sha256', report, { key: pckKey, dsaEncoding: 'ieee-p1363' });
  // Intel's chain is leaf, intermediate, root and ends with a NUL; ours is leaf, root and the NUL.
  const chain = Buffer.from(`${SIMULATOR_PCK_CERTIFICATE_PEM}${SIMULATOR_ROOT_CA_PEM}\0`);
  return Buffer.concat([
    report,
    reportSignature,
    u16(QE_AUTH_DATA.length),
    QE_AUTH_DATA,
    u16(5),
    u32(chain.length),
    chain,
  ]);
}

/** v4: header and TD 1.0 report. v5: header, body descriptor (type 3, size) and TD 1.5 report. */
function signedPart(input: SimulatorQuoteInput): Buffer {
  const version = input.version ?? 4;
  if (version === 4) return Buffer.concat([header(4), tdReport(input, 584)]);
  const descriptor = Buffer.concat([u16(3), u32(TD15_REPORT_LENGTH)]);
  return Buffer.concat([header(5), descriptor, tdReport(input, TD15_REPORT_LENGTH)]);
}

/**
 * Builds a TDX quote v4 or v5, byte for byte in Intel's layout, signed for real: the attestation key signs
 * header and TD report, the PCK leaf signs the QE report (which carries Intel's TD QE identity, as a real one
 * does), the chain leads to the simulator root.
 */
export function encodeSimulatorQuote(input: SimulatorQuoteInput): Uint8Array {
  const signed = signedPart(input);
  const attestationPublicKey = p256.getPublicKey(input.attestationKey, false).subarray(1);
  const quoteSignature = p256.sign(signed, input.attestationKey);
  const certification = certificationData(attestationPublicKey);
  const signatureData = Buffer.concat([
    quoteSignature,
    attestationPublicKey,
    u16(6),
    u32(certification.length),
    certification,
  ]);
  return new Uint8Array(Buffer.concat([signed, u32(signatureData.length), signatureData]));
}
