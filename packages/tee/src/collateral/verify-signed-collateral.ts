import type { X509Certificate } from 'node:crypto';
import type { z } from 'zod';
import { type TrustAnchor, verifyCertificateChain } from '../quote/verify-certificate-chain';
import { collateralError } from './collateral-error';
import type { SignedCollateral } from './collateral';
import { verifySignature } from './verify-signature';

const TCB_SIGNING_CN = 'CN=Intel SGX TCB Signing';

/** Where and when signed collateral must be valid. */
export interface CollateralContext {
  /** The one root the quote's PCK chain ended at: collateral is judged only by the quote's own PKI. */
  anchor: TrustAnchor;
  now: Date;
  /** When set, collateral outside its dates is recorded here instead of failing (a soft result). */
  expired?: string[];
}

/** A verified document and the certificates that signed it (for the root CRL check). */
export interface VerifiedDocument<T> {
  document: T;
  signers: X509Certificate[];
}

/**
 * Verifies a TCB info or QE identity: its issuer chain ends at the root the PCK chain ended at (never another
 * trusted root), its leaf is named Intel SGX TCB Signing (under every root, private ones included), the
 * signature over the exact body verifies, the body has the expected shape and the verification time lies
 * between its `issueDate` and `nextUpdate`.
 */
export function verifySignedCollateral<T extends { issueDate: string; nextUpdate: string }>(
  signed: SignedCollateral,
  schema: z.ZodType<T>,
  what: string,
  context: CollateralContext,
): VerifiedDocument<T> {
  const chain = verifyCertificateChain(signed.issuerChain, [context.anchor], context.now);
  if (!chain.valid) {
    throw collateralError(
      'COLLATERAL_SIGNATURE',
      `${what} issuer chain does not end at the quote's root: ${chain.message}`,
    );
  }
  if (!chain.leaf.subject.split('\n').includes(TCB_SIGNING_CN)) {
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
    const message = `${what} is valid from ${parsed.issueDate} to ${parsed.nextUpdate}, not at ${context.now.toISOString()}`;
    if (!context.expired) throw collateralError('COLLATERAL_EXPIRED', message);
    context.expired.push(message);
  }
  return { document: parsed, signers: chain.certificates };
}
