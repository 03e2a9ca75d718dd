import 'reflect-metadata';
import { KeyObject, sign, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import { SGX_EXTENSION_OID } from '../collateral/sgx-extensions';

/** A private PKI shaped like Intel's (root, platform CA, PCK leaf with SGX extension, TCB signing). Tests only. */
export interface TestPki {
  rootPem: string;
  caPem: string;
  pckPem: string;
  pckSerial: string;
  pckKey: KeyObject;
  tcbSigningPem: string;
  /** Signs collateral JSON like Intel's TCB signing key (raw r || s). */
  signCollateral(body: string): Buffer;
  /** A CRL of the platform CA (or of the root) listing `serials`. */
  crl(
    issuer: 'ca' | 'root',
    serials: string[],
    thisUpdate: Date,
    nextUpdate: Date,
  ): Promise<Buffer>;
  /** A chain one CA deeper than Intel's: a sub-CA (serial 04) under the platform CA, and a PCK leaf under it. */
  subCa(): Promise<SubCa>;
}

/** A sub-CA of a {@link TestPki}, its PCK leaf, and its own CRL. */
export interface SubCa {
  subCaPem: string;
  pckPem: string;
  pckKey: KeyObject;
  crl(serials: string[], thisUpdate: Date, nextUpdate: Date): Promise<Buffer>;
}

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const VALID = { notBefore: new Date('2020-01-01'), notAfter: new Date('2040-01-01') };
type X509Crypto = Parameters<typeof x509.cryptoProvider.set>[0];
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
const crypto = webcrypto as unknown as X509Crypto;

function sgxExtension(fmspc: string, pceId: string, components: number[], pceSvn: number) {
  const member = (oid: string, value: asn1js.AsnType) =>
    new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: oid }), value] });
  const tcb = [
    ...components.map((svn, index) =>
      member(`${SGX_EXTENSION_OID}.2.${index + 1}`, new asn1js.Integer({ value: svn })),
    ),
    member(`${SGX_EXTENSION_OID}.2.17`, new asn1js.Integer({ value: pceSvn })),
    member(
      `${SGX_EXTENSION_OID}.2.18`,
      new asn1js.OctetString({ valueHex: new Uint8Array(components) }),
    ),
  ];
  const octets = (hex: string) => new asn1js.OctetString({ valueHex: Buffer.from(hex, 'hex') });
  const value = new asn1js.Sequence({
    value: [
      member(`${SGX_EXTENSION_OID}.1`, octets('00'.repeat(16))),
      member(`${SGX_EXTENSION_OID}.2`, new asn1js.Sequence({ value: tcb })),
      member(`${SGX_EXTENSION_OID}.3`, octets(pceId)),
      member(`${SGX_EXTENSION_OID}.4`, octets(fmspc)),
    ],
  });
  return new x509.Extension(SGX_EXTENSION_OID, false, value.toBER());
}

const generateKeys = () => webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
const caExtensions = () => [
  new x509.BasicConstraintsExtension(true, undefined, true),
  new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
];

/** Creates a {@link TestPki} whose PCK leaf carries `fmspc`, `pceId` and the given TCB. */
export async function createTestPki(platform: {
  fmspc: string;
  pceId: string;
  components: number[];
  pceSvn: number;
  /** Subject of the TCB signing certificate (Intel's name by default, which every root must use). */
  tcbSigningName?: string;
}): Promise<TestPki> {
  x509.cryptoProvider.set(crypto);
  const [rootKeys, caKeys, pckKeys, tcbKeys] = await Promise.all([
    generateKeys(),
    generateKeys(),
    generateKeys(),
    generateKeys(),
  ]);
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    ...VALID,
    serialNumber: '01',
    name: 'CN=Test SGX Root CA',
    keys: rootKeys,
    signingAlgorithm: EC,
    extensions: caExtensions(),
  });
  const issue = (
    serialNumber: string,
    subject: string,
    keys: CryptoKeyPair,
    by: CryptoKey,
    issuer: string,
    extensions: x509.Extension[],
  ) =>
    x509.X509CertificateGenerator.create({
      ...VALID,
      serialNumber,
      subject,
      issuer,
      publicKey: keys.publicKey,
      signingKey: by,
      signingAlgorithm: EC,
      extensions,
    });
  const ca = await issue(
    '02',
    'CN=Test SGX PCK Platform CA',
    caKeys,
    rootKeys.privateKey,
    root.subject,
    caExtensions(),
  );
  const sgx = sgxExtension(platform.fmspc, platform.pceId, platform.components, platform.pceSvn);
  const pck = await issue(
    '7a01',
    'CN=Test SGX PCK Certificate',
    pckKeys,
    caKeys.privateKey,
    ca.subject,
    [sgx],
  );
  const tcb = await issue(
    '03',
    platform.tcbSigningName ?? 'CN=Intel SGX TCB Signing',
    tcbKeys,
    rootKeys.privateKey,
    root.subject,
    [],
  );
  const tcbKey = KeyObject.from(tcbKeys.privateKey);
  const crlOf = async (
    certificate: x509.X509Certificate,
    key: CryptoKey,
    serials: string[],
    thisUpdate: Date,
    nextUpdate: Date,
  ) => {
    const crl = await x509.X509CrlGenerator.create({
      issuer: certificate.subject,
      thisUpdate,
      nextUpdate,
      signingAlgorithm: EC,
      signingKey: key,
      entries: serials.map((serialNumber) => ({ serialNumber, revocationDate: thisUpdate })),
    });
    return Buffer.from(crl.rawData);
  };
  return {
    rootPem: root.toString('pem'),
    caPem: ca.toString('pem'),
    pckPem: pck.toString('pem'),
    pckSerial: '7a01',
    pckKey: KeyObject.from(pckKeys.privateKey),
    tcbSigningPem: tcb.toString('pem'),
    signCollateral: (body) =>
      sign('sha256', Buffer.from(body), { key: tcbKey, dsaEncoding: 'ieee-p1363' }),
    crl(issuer, serials, thisUpdate, nextUpdate) {
      const [certificate, key] = issuer === 'ca' ? [ca, caKeys] : [root, rootKeys];
      return crlOf(certificate, key.privateKey, serials, thisUpdate, nextUpdate);
    },
    async subCa() {
      const [subKeys, leafKeys] = await Promise.all([generateKeys(), generateKeys()]);
      const name = 'CN=Test SGX PCK Sub CA';
      const sub = await issue('04', name, subKeys, caKeys.privateKey, ca.subject, caExtensions());
      const leaf = await issue(
        '7a02',
        'CN=Test SGX PCK Certificate',
        leafKeys,
        subKeys.privateKey,
        sub.subject,
        [sgx],
      );
      return {
        subCaPem: sub.toString('pem'),
        pckPem: leaf.toString('pem'),
        pckKey: KeyObject.from(leafKeys.privateKey),
        crl: (serials, thisUpdate, nextUpdate) =>
          crlOf(sub, subKeys.privateKey, serials, thisUpdate, nextUpdate),
      };
    },
  };
}
