import { X509Certificate } from 'node:crypto';
import type { QuoteFailure } from './quote-verification';

/** A pinned trust anchor. */
export interface TrustAnchor {
  name: 'intel' | 'simulator' | 'custom';
  certificate: X509Certificate;
}

/** The outcome of {@link verifyCertificateChain}. */
export type ChainVerification =
  | {
      valid: true;
      leaf: X509Certificate;
      anchor: TrustAnchor['name'];
      /** The chain as given, leaf first, and the anchor it ends at. */
      certificates: X509Certificate[];
      root: X509Certificate;
    }
  | { valid: false; failure: QuoteFailure; message: string };

function validAt(certificate: X509Certificate, now: Date): boolean {
  return now >= new Date(certificate.validFrom) && now <= new Date(certificate.validTo);
}

function parse(pems: readonly string[]): X509Certificate[] | undefined {
  try {
    return pems.map((pem) => new X509Certificate(pem));
  } catch {
    return undefined;
  }
}

function isIssuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  return parent.ca && child.checkIssued(parent) && child.verify(parent.publicKey);
}

/**
 * Verifies a certificate chain (leaf first): each certificate is valid at `now` and signed by the next, which
 * must be a CA, and the chain ends at one of `anchors` (the last certificate is the anchor itself, byte for byte,
 * or is issued by it). The chain in a quote is attacker-supplied; only the pinned anchors are trusted.
 */
export function verifyCertificateChain(
  pems: readonly string[],
  anchors: readonly TrustAnchor[],
  now: Date,
): ChainVerification {
  const chain = parse(pems);
  if (!chain || chain.length === 0) {
    return { valid: false, failure: 'CERTIFICATE_CHAIN', message: 'unparsable certificate' };
  }
  for (const [index, certificate] of chain.entries()) {
    if (!validAt(certificate, now)) {
      return {
        valid: false,
        failure: 'CERTIFICATE_CHAIN',
        message: `certificate ${index} (${certificate.subject.replace(/\n/g, ', ')}) is not valid at ${now.toISOString()}`,
      };
    }
    const parent = chain[index + 1];
    if (parent && !isIssuedBy(certificate, parent)) {
      return {
        valid: false,
        failure: 'CERTIFICATE_CHAIN',
        message: `certificate ${index} is not signed by certificate ${index + 1}`,
      };
    }
  }
  const last = chain[chain.length - 1]!;
  const anchor =
    anchors.find(({ certificate }) => certificate.raw.equals(last.raw)) ??
    anchors.find(({ certificate }) => isIssuedBy(last, certificate));
  if (!anchor) {
    return {
      valid: false,
      failure: 'UNTRUSTED_ROOT',
      message: `the chain ends at ${last.issuer.replace(/\n/g, ', ')}, which is not a pinned root`,
    };
  }
  return {
    valid: true,
    leaf: chain[0]!,
    anchor: anchor.name,
    certificates: chain,
    root: anchor.certificate,
  };
}
