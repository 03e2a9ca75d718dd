import type { X509Certificate } from 'node:crypto';
import { bytesEqual } from '../bytes';
import { certificateFields } from './certificate-fields';
import { collateralError } from './collateral-error';
import { type Crl, parseCrl } from './parse-crl';
import { verifySignature } from './verify-signature';

/** Reads a CRL and checks that `issuer` signed it and that it is current at `now`. */
function verifiedCrl(
  der: Uint8Array,
  issuer: X509Certificate,
  what: string,
  now: Date,
  expired?: string[],
): Crl {
  const crl = parseCrl(der, what);
  if (!bytesEqual(crl.issuer, certificateFields(issuer.raw).subject)) {
    throw collateralError(
      'COLLATERAL_MISMATCH',
      `${what} is not issued by ${issuer.subject.replace(/\n/g, ', ')}`,
    );
  }
  if (!verifySignature(issuer.publicKey, crl.signedBytes, crl.signature, 'der')) {
    throw collateralError('COLLATERAL_SIGNATURE', `${what} signature does not verify`);
  }
  if (now < crl.thisUpdate || now > crl.nextUpdate) {
    const message = `${what} is valid from ${crl.thisUpdate.toISOString()} to ${crl.nextUpdate.toISOString()}`;
    if (!expired) throw collateralError('COLLATERAL_EXPIRED', message);
    expired.push(message);
  }
  return crl;
}

/** What {@link checkRevocation} checks. */
export interface RevocationInput {
  /** The PCK chain, leaf first, without the root. */
  pckChain: readonly X509Certificate[];
  root: X509Certificate;
  /** Certificates below the root that signed collateral (TCB Signing). */
  signers: readonly X509Certificate[];
  pckCrl: Uint8Array;
  rootCaCrl: Uint8Array;
  now: Date;
  /** When set, a CRL outside its dates is recorded here instead of failing. */
  expired?: string[];
}

/**
 * Checks revocation: the PCK CRL must come from the CA that issued the PCK leaf and must not list the leaf;
 * the root CA CRL must not list any CA or signer below the root. Both CRLs must be signed and current.
 * Returns the CRLs' update dates, which bound the verdict.
 *
 * @throws ParleyError with `details.failure` `REVOKED`, `COLLATERAL_SIGNATURE`, `COLLATERAL_EXPIRED` or
 * `COLLATERAL_MISMATCH`.
 */
export function checkRevocation(input: RevocationInput): { issuedAt: Date; nextUpdate: Date } {
  const [leaf, ...cas] = input.pckChain;
  const pckIssuer = cas[0] ?? input.root;
  if (!leaf) throw collateralError('COLLATERAL_MISMATCH', 'the quote has no PCK certificate');
  const pckCrl = verifiedCrl(input.pckCrl, pckIssuer, 'PCK CRL', input.now, input.expired);
  const rootCrl = verifiedCrl(input.rootCaCrl, input.root, 'root CA CRL', input.now, input.expired);
  if (pckCrl.revokedSerials.has(certificateFields(leaf.raw).serial)) {
    throw collateralError('REVOKED', 'the PCK certificate is revoked');
  }
  for (const certificate of [...cas, ...input.signers]) {
    if (certificate.raw.equals(input.root.raw)) continue;
    if (rootCrl.revokedSerials.has(certificateFields(certificate.raw).serial)) {
      throw collateralError('REVOKED', `${certificate.subject.replace(/\n/g, ', ')} is revoked`);
    }
  }
  return {
    issuedAt: new Date(Math.max(pckCrl.thisUpdate.getTime(), rootCrl.thisUpdate.getTime())),
    nextUpdate: new Date(Math.min(pckCrl.nextUpdate.getTime(), rootCrl.nextUpdate.getTime())),
  };
}
