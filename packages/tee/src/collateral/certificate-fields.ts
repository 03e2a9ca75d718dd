import {
  childrenOf,
  decodeDer,
  encodingOf,
  integerHex,
  isContextTag,
  oidOf,
  contentOf,
} from './der';

/** What node:crypto's X509Certificate does not expose: raw names, the serial as read, and extensions. */
export interface CertificateFields {
  serial: string;
  /** DER of the issuer and subject Names, for exact matching with a CRL's issuer. */
  issuer: Uint8Array;
  subject: Uint8Array;
  /** Extension values (the OCTET STRING contents) by OID. */
  extensions: Map<string, Uint8Array>;
}

/** Reads serial, names and extensions of a DER certificate (RFC 5280 TBSCertificate). */
export function certificateFields(der: Uint8Array): CertificateFields {
  const tbs = childrenOf(childrenOf(decodeDer(der, 'certificate'))[0]);
  // `version` is an explicit [0] and optional; everything after it has a fixed position.
  const fields = isContextTag(tbs[0], 0) ? tbs.slice(1) : tbs;
  const [serial, , issuer, , subject] = fields;
  const extensions = new Map<string, Uint8Array>();
  const extensionBlock = fields.find((field) => isContextTag(field, 3));
  for (const extension of childrenOf(childrenOf(extensionBlock)[0])) {
    const parts = childrenOf(extension);
    extensions.set(oidOf(parts[0]), contentOf(parts[parts.length - 1]));
  }
  return {
    serial: integerHex(serial),
    issuer: issuer ? encodingOf(issuer) : new Uint8Array(),
    subject: subject ? encodingOf(subject) : new Uint8Array(),
    extensions,
  };
}
