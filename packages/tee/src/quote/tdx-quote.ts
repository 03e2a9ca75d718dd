import type { Td15ReportField, TdReportField } from './tdx-quote-layout';

/** The quote header. */
export interface TdxQuoteHeader {
  /** 4 or 5. */
  version: number;
  attestationKeyType: number;
  teeType: number;
  /** Hex. */
  qeVendorId: string;
  /** Hex. */
  userData: string;
}

/** The QE's SGX report body, decoded (hex, numbers for ids and SVNs). */
export interface QeReport {
  cpuSvn: string;
  miscSelect: string;
  attributes: string;
  mrEnclave: string;
  mrSigner: string;
  isvProdId: number;
  isvSvn: number;
  reportData: string;
}

/** The certification data as the quote declares it, kept so that the verifier can judge it. */
export interface TdxCertificationData {
  /** Outer certification data type (6 expected). */
  outerType: number;
  /** Inner certification data type (5 expected: the PCK certificate chain). */
  innerType: number;
  /** Bytes of the outer certification data left after its declared content (0 in a well-formed quote). */
  outerTrailingBytes: number;
  /**
   * Bytes of the PCK certification data that are not a PEM certificate, whitespace or Intel's closing NUL
   * (0 in a well-formed quote).
   */
  chainExtraBytes: number;
  /** Bytes of the signature data after the certification data it declares (0 in a well-formed quote). */
  signatureTrailingBytes: number;
  /**
   * Bytes after the quote's declared end (its signature data). They are outside the quote, signed by nothing and
   * ignored, as Intel's and Phala's verifiers ignore them (quotes are often served in a padded buffer).
   */
  quoteTrailingBytes: number;
}

/** A parsed TDX quote v4 or v5. Measurements are lowercase hex; what signatures cover stays as bytes. */
export interface TdxQuote {
  header: TdxQuoteHeader;
  /** 2 (TD 1.0 report) or 3 (TD 1.5 report); a v4 quote always carries type 2. */
  bodyType: number;
  /**
   * The TD report: `mrTd`, `rtmr0`..`rtmr3`, `reportData` and the other fields, as hex; a TD 1.5 report also
   * has `teeTcbSvn2` and `mrServiceTd`.
   */
  body: Record<TdReportField, string> & Partial<Record<Td15ReportField, string>>;
  /** Whether the TD runs with the DEBUG attribute (its memory is readable by the host). */
  debug: boolean;
  /** Header and TD report: the bytes the attestation key signs. */
  signedBytes: Uint8Array;
  /** The decoded QE report. */
  qe: QeReport;
  certification: TdxCertificationData;
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
    /** The PCK certificate chain, leaf first, as PEM blocks (empty when the inner type is not 5). */
    pckCertificateChain: string[];
  };
}
