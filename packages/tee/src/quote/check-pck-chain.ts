import { failed, type QuoteVerification } from './quote-verification';
import type { ChainVerification } from './verify-certificate-chain';

/** Intel's PCK chain: PCK leaf, PCK Platform (or Processor) CA, Intel SGX Root CA; Intel QVL wants exactly that. */
export const PCK_CHAIN_LENGTH = 3;

const unsupported = (message: string) => failed('PCK_CERT_UNSUPPORTED_FORMAT', message);

/**
 * Refuses a quote's PCK chain of more certificates than Intel's, before any of them is checked (as Intel QVL
 * does on parsing): with more, a CA between the platform CA and the root would be trusted without a CRL of
 * its own ever being checked.
 */
export function checkPckChainLength(pems: readonly string[]): QuoteVerification | undefined {
  return pems.length > PCK_CHAIN_LENGTH
    ? unsupported(
        `the PCK certificate chain holds ${pems.length} certificates; Intel's holds ${PCK_CHAIN_LENGTH}`,
      )
    : undefined;
}

/**
 * Refuses a verified PCK chain of another shape than Intel's. Under Intel's root: exactly the leaf, one CA and
 * the root itself, byte for byte (Intel QVL's `STATUS_UNSUPPORTED_PCK_CERT_FORMAT`). Under the simulator's or
 * a private root, which may be left out of the chain: no more than one CA between the leaf and the root, so
 * that revocation (PCK CRL of that CA, root CA CRL for the CA) covers every certificate.
 */
export function checkPckChainShape(
  chain: Extract<ChainVerification, { valid: true }>,
): QuoteVerification | undefined {
  const { certificates, root, anchor } = chain;
  const endsAtRoot = certificates[certificates.length - 1]!.raw.equals(root.raw);
  if (anchor === 'intel' && (certificates.length !== PCK_CHAIN_LENGTH || !endsAtRoot)) {
    return unsupported(
      "the PCK certificate chain is not Intel's: PCK certificate, platform CA and Intel SGX Root CA",
    );
  }
  const path = certificates.length + (endsAtRoot ? 0 : 1);
  if (path > PCK_CHAIN_LENGTH) {
    return unsupported(
      `the PCK certificate chain reaches its root through ${path - 2} CAs; at most one is supported`,
    );
  }
  return undefined;
}
