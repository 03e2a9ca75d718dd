import type { X509Certificate } from 'node:crypto';
import type { z } from 'zod';
import { type TrustAnchor, verifyCertificateChain } from '../quote/verify-certificate-chain';
import { collateralError } from './collateral-error';
import type { SignedCollateral } from './collateral';
import { verifySignature } from './verify-signature';

const TCB_SIGNING_CN = 'CN=Intel SGX TCB Signing';

/** Where and when signed collateral must be valid. */
export interface CollateralContext {
  anchors: readonly TrustAnchor[];
  now: Date;
}

/** A verified document and the certificates that signed it (for the root CRL check). */
export interface VerifiedDocument<T> {
  document: T;
  signers: X509Certificate[];
}

/**
 * Verifies a TCB info or QE identity: its issuer chain ends at a pinned root (and, under Intel's root, its leaf
 * is Intel SGX TCB Signing), the signature over the exact body verifies, the body has the expected shape and
 * the verification time lies between its `issueDate` and `nextUpdate`.
 */
export function verifySignedCollateral<T extends { issueDate: string; nextUpdate: string }>(
  signed: SignedCollateral,
  schema: z.ZodType<T>,
  what: string,
  context: CollateralContext,
): VerifiedDocument<T> {
  const chain = verifyCertificateChain(signed.issuerChain, context.anchors, context.now);
  if (!chain.valid) {
    throw collateralError('COLLATERAL_SIGNATURE', `${what} issuer chain: ${chain.message}`);
  }
  if (chain.anchor === 'intel' && !chain.leaf.subject.split('\n').includes(TCB_SIGNING_CN)) {
    throw collateralError('COLLATERAL_SIGNATURE', `${what} is not signed by Intel SGX TCB Signing`);
  }
  const body = new TextEncoder().encode(signed.body);
  if (!verifySignature(chain.leaf.publicKey, body, signed.signature, 'raw')) {
    throw collateralError('COLLATERAL_SIGNATURE', `${what} signature does not verify`);
  }
  let parsed: T;
  try {
    parsed = schema.parse(JSON.parse(signed.body));
  } catch {
    throw collateralError('COLLATERAL_FORMAT', `${what} does not have Intel's shape`);
  }
  const issued = new Date(parsed.issueDate);
  const next = new Date(parsed.nextUpdate);
  if (context.now < issued || context.now > next) {
    throw collateralError(
      'COLLATERAL_EXPIRED',
      `${what} is valid from ${parsed.issueDate} to ${parsed.nextUpdate}, not at ${context.now.toISOString()}`,
    );
  }
  return { document: parsed, signers: chain.certificates };
}
