/**
 * Byte layout of Intel TDX quotes v4 and v5 (Intel "TDX DCAP Quote Generation Library and Quote Verification
 * Library" reference, appendix "Quote Format"). All integers are little-endian. One table serves both versions:
 * v5 adds a body descriptor (type u16, size u32) before the TD report; body type 2 is the TD 1.0 report, type 3
 * the TD 1.5 report (the TD 1.0 fields, then `teeTcbSvn2` and `mrServiceTd`).
 */
export const TDX_QUOTE = {
  /** Header: version u16, attestation key type u16, TEE type u32, reserved 4, QE vendor id 16, user data 20. */
  headerLength: 48,
  versions: [4, 5],
  /** v5 body descriptor: body type u16, body size u32. */
  bodyDescriptorLength: 6,
  /** v5 body types and their report lengths; v4 always carries the TD 1.0 report. */
  bodyTypes: { 2: 584, 3: 648 } as Record<number, number>,
  /** Body type 2: TD 1.0 report (TDREPORT10). */
  bodyTypeTd10: 2,
  /** Body type 3: TD 1.5 report (TDREPORT15). */
  bodyTypeTd15: 3,
  /** ECDSA-256 with P-256. */
  attestationKeyTypeEcdsaP256: 2,
  teeTypeTdx: 0x81,
  /** Offsets and lengths inside the TD report body. */
  body: {
    teeTcbSvn: [0, 16],
    mrSeam: [16, 48],
    mrSignerSeam: [64, 48],
    seamAttributes: [112, 8],
    tdAttributes: [120, 8],
    xfam: [128, 8],
    mrTd: [136, 48],
    mrConfigId: [184, 48],
    mrOwner: [232, 48],
    mrOwnerConfig: [280, 48],
    rtmr0: [328, 48],
    rtmr1: [376, 48],
    rtmr2: [424, 48],
    rtmr3: [472, 48],
    reportData: [520, 64],
  },
  /** Fields the TD 1.5 report adds after the TD 1.0 ones. */
  bodyTd15: {
    teeTcbSvn2: [584, 16],
    mrServiceTd: [600, 48],
  },
  /** Certification data type 6: QE report certification data (QE report, its signature, auth data, chain). */
  certificationDataQeReport: 6,
  /** Certification data type 5: the PCK certificate chain as concatenated PEM. */
  certificationDataPckChain: 5,
  /** An SGX enclave report body (the QE report) and its fields. */
  qeReportLength: 384,
  qeReport: {
    cpuSvn: [0, 16],
    miscSelect: [16, 4],
    attributes: [48, 16],
    mrEnclave: [64, 32],
    mrSigner: [128, 32],
    isvProdId: [256, 2],
    isvSvn: [258, 2],
    reportData: [320, 64],
  },
  /** Offset of report data inside an SGX enclave report body. */
  qeReportDataOffset: 320,
  ecdsaSignatureLength: 64,
  ecdsaPublicKeyLength: 64,
  /** Intel's QE vendor id. */
  intelQeVendorId: '939a7233f79c4ca9940a0db3957f0607',
  /** Intel's TD quoting enclave: the signer of every genuine TDX QE, and its product id. */
  intelTdQe: {
    mrSigner: 'dc9e2a7c6f948f17474e34a7fc43ed030f7c1563f1babddf6340c82e0e54a8c5',
    isvProdId: 2,
  },
} as const;

/** Names of the measurement and report fields of a TD 1.0 report body. */
export type TdReportField = keyof typeof TDX_QUOTE.body;

/** The TD report's measurement registers (the TD, its runtime, its configuration and owner, the TDX module). */
export const TD_MEASUREMENT_FIELDS = [
  'mrTd',
  'rtmr0',
  'rtmr1',
  'rtmr2',
  'rtmr3',
  'mrConfigId',
  'mrOwner',
  'mrOwnerConfig',
  'mrSeam',
] as const satisfies readonly TdReportField[];

/** Names of the fields the TD 1.5 report adds. */
export type Td15ReportField = keyof typeof TDX_QUOTE.bodyTd15;

/** Names of the fields of the QE's SGX report body. */
export type QeReportField = keyof typeof TDX_QUOTE.qeReport;
