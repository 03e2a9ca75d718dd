import type { TdReportField } from './tdx-quote-layout';

/** The quote header. */
export interface TdxQuoteHeader {
  version: number;
  attestationKeyType: number;
  teeType: number;
  /** Hex. */
  qeVendorId: string;
  /** Hex. */
  userData: string;
}

/** A parsed TDX quote v4. Measurements are lowercase hex; what signatures cover stays as bytes. */
export interface TdxQuote {
  header: TdxQuoteHeader;
  /** The TD report: `mrTd`, `rtmr0`..`rtmr3`, `reportData` and the other fields, as hex. */
  body: Record<TdReportField, string>;
  /** Whether the TD runs with the DEBUG attribute (its memory is readable by the host). */
  debug: boolean;
  /** Header and TD report: the bytes the attestation key signs. */
  signedBytes: Uint8Array;
  signature: {
    /** ECDSA P-256 signature (r || s) of {@link TdxQuote.signedBytes} by the attestation key. */
    quoteSignature: Uint8Array;
    /** Raw P-256 attestation public key (x || y). */
    attestationKey: Uint8Array;
    /** The quoting enclave's report (SGX report body). */
    qeReport: Uint8Array;
    /** ECDSA P-256 signature (r || s) of the QE report by the PCK key. */
    qeReportSignature: Uint8Array;
    qeAuthData: Uint8Array;
    /** The PCK certificate chain, leaf first, as PEM blocks. */
    pckCertificateChain: string[];
  };
}
