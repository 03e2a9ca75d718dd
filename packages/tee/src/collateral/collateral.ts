/** A JSON document signed by Intel's TCB signing key: the exact signed text, its signature and issuer chain. */
export interface SignedCollateral {
  /** The JSON text exactly as signed (the `tcbInfo` / `enclaveIdentity` object of a PCS response). */
  body: string;
  /** ECDSA P-256 signature, r || s (64 bytes). */
  signature: Uint8Array;
  /** The issuer chain, leaf (Intel SGX TCB Signing) first, as PEM blocks. */
  issuerChain: string[];
}

/**
 * Intel collateral for one TDX quote: TCB info for its FMSPC, the TD QE identity, the CRL of the CA that issued
 * the PCK certificate and Intel's root CA CRL. Build it with `parseDcapQvlCollateral` or `collateralFromPcs`.
 */
export interface TdxCollateral {
  tcbInfo: SignedCollateral;
  qeIdentity: SignedCollateral;
  /** DER of the PCK CRL (Intel SGX PCK Platform or Processor CA). */
  pckCrl: Uint8Array;
  /** DER of the Intel SGX Root CA CRL. */
  rootCaCrl: Uint8Array;
}
