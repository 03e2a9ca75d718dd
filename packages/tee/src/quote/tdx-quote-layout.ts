/**
 * Byte layout of an Intel TDX quote v4 (Intel "TDX DCAP Quote Generation Library and Quote Verification
 * Library" reference, appendix "Quote Format"). All integers are little-endian.
 */
export const TDX_QUOTE = {
  /** Header: version u16, attestation key type u16, TEE type u32, reserved 4, QE vendor id 16, user data 20. */
  headerLength: 48,
  /** TD report body (TDREPORT10). */
  bodyLength: 584,
  version: 4,
  /** ECDSA-256 with P-256. */
  attestationKeyTypeEcdsaP256: 2,
  teeTypeTdx: 0x81,
  /** Offsets inside the TD report body. */
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
  /** Certification data type 6: QE report certification data (QE report, its signature, auth data, chain). */
  certificationDataQeReport: 6,
  /** Certification data type 5: the PCK certificate chain as concatenated PEM. */
  certificationDataPckChain: 5,
  /** An SGX enclave report body (the QE report). */
  qeReportLength: 384,
  /** Offset of report data inside an SGX enclave report body. */
  qeReportDataOffset: 320,
  ecdsaSignatureLength: 64,
  ecdsaPublicKeyLength: 64,
  /** Intel's QE vendor id. */
  intelQeVendorId: '939a7233f79c4ca9940a0db3957f0607',
} as const;

/** Names of the measurement and report fields of a TD report body. */
export type TdReportField = keyof typeof TDX_QUOTE.body;
