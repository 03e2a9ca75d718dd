import { collateralError } from './collateral-error';
import type { SignedCollateral, TdxCollateral } from './collateral';
import { extractSignedJson } from './extract-signed-json';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function bad(message: string): never {
  throw collateralError('COLLATERAL_FORMAT', `Malformed collateral: ${message}`);
}

/** PEM blocks from a chain as PCS sends it (URL-encoded in a header) or as plain PEM text. */
export function pemChain(text: string, what: string): string[] {
  let decoded = text;
  try {
    if (text.includes('%')) decoded = decodeURIComponent(text);
  } catch {
    bad(`${what} is not URL-encoded PEM`);
  }
  const chain = decoded.match(PEM_BLOCK);
  if (!chain) bad(`${what} holds no certificate`);
  return chain;
}

function hexBytes(hex: unknown, what: string, length?: number): Uint8Array {
  if (typeof hex !== 'string' || !/^([0-9a-fA-F]{2})+$/.test(hex)) bad(`${what} is not hex`);
  const bytes = new Uint8Array(Buffer.from(hex, 'hex'));
  if (length !== undefined && bytes.length !== length) bad(`${what} is not ${length} bytes`);
  return bytes;
}

/** DER from raw bytes, a PEM `X509 CRL` block, or hex. */
function crlBytes(crl: Uint8Array | string, what: string): Uint8Array {
  if (crl instanceof Uint8Array) return crl;
  if (typeof crl !== 'string') bad(`${what} is neither bytes nor text`);
  const pem = /-----BEGIN X509 CRL-----([\s\S]+?)-----END X509 CRL-----/.exec(crl);
  if (pem) return new Uint8Array(Buffer.from(pem[1]!.replace(/\s+/g, ''), 'base64'));
  return hexBytes(crl, what);
}

function signedFromResponse(response: string, key: string, chain: string, what: string) {
  const body = extractSignedJson(response, key) ?? bad(`${what} has no "${key}" object`);
  let signature: unknown;
  try {
    signature = (JSON.parse(response) as { signature?: unknown }).signature;
  } catch {
    bad(`${what} is not JSON`);
  }
  return {
    body,
    signature: hexBytes(signature, `${what} signature`, 64),
    issuerChain: pemChain(chain, `${what} issuer chain`),
  } satisfies SignedCollateral;
}

/** Intel PCS (or PCCS) responses as fetched: bodies as text, issuer chains from the response headers. */
export interface PcsCollateralInput {
  /** Body of `GET /tdx/certification/v4/tcb?fmspc=…`: `{"tcbInfo":{…},"signature":"…"}`. */
  tcbInfoResponse: string;
  /** Header `TCB-Info-Issuer-Chain` (URL-encoded PEM, or PEM). */
  tcbInfoIssuerChain: string;
  /** Body of `GET /tdx/certification/v4/qe/identity`: `{"enclaveIdentity":{…},"signature":"…"}`. */
  qeIdentityResponse: string;
  /** Header `SGX-Enclave-Identity-Issuer-Chain`. */
  qeIdentityIssuerChain: string;
  /** The PCK CRL: DER bytes, PEM or hex. */
  pckCrl: Uint8Array | string;
  /** Intel SGX Root CA CRL: DER bytes, PEM or hex. */
  rootCaCrl: Uint8Array | string;
}

/**
 * Collateral from Intel PCS / PCCS responses. The signed objects are cut from the bodies byte for byte.
 *
 * @throws ParleyError `BAD_REQUEST` (`details.failure` `COLLATERAL_FORMAT`) when a piece is malformed.
 */
export function collateralFromPcs(input: PcsCollateralInput): TdxCollateral {
  return {
    tcbInfo: signedFromResponse(
      input.tcbInfoResponse,
      'tcbInfo',
      input.tcbInfoIssuerChain,
      'TCB info',
    ),
    qeIdentity: signedFromResponse(
      input.qeIdentityResponse,
      'enclaveIdentity',
      input.qeIdentityIssuerChain,
      'QE identity',
    ),
    pckCrl: crlBytes(input.pckCrl, 'PCK CRL'),
    rootCaCrl: crlBytes(input.rootCaCrl, 'root CA CRL'),
  };
}

/**
 * Collateral in the JSON shape of Phala's dcap-qvl (`tcb_info`, `tcb_info_signature`, `tcb_info_issuer_chain`,
 * `qe_identity`…, `pck_crl`, `root_ca_crl`), as text or parsed.
 *
 * @throws ParleyError `BAD_REQUEST` (`details.failure` `COLLATERAL_FORMAT`) when a field is missing or malformed.
 * @example
 * const collateral = parseDcapQvlCollateral(await readFile('collateral.json', 'utf8'));
 * verifyQuote(quote, { collateral });
 */
export function parseDcapQvlCollateral(json: string | Record<string, unknown>): TdxCollateral {
  let value: Record<string, unknown>;
  try {
    value = typeof json === 'string' ? (JSON.parse(json) as Record<string, unknown>) : json;
  } catch {
    bad('dcap-qvl collateral is not JSON');
  }
  if (typeof value !== 'object' || value === null) bad('dcap-qvl collateral is not an object');
  const text = (field: string) => {
    const found = value[field];
    if (typeof found !== 'string') bad(`"${field}" is missing`);
    return found;
  };
  const signed = (name: string): SignedCollateral => ({
    body: text(name),
    signature: hexBytes(text(`${name}_signature`), `${name}_signature`, 64),
    issuerChain: pemChain(text(`${name}_issuer_chain`), `${name}_issuer_chain`),
  });
  return {
    tcbInfo: signed('tcb_info'),
    qeIdentity: signed('qe_identity'),
    pckCrl: crlBytes(text('pck_crl'), 'pck_crl'),
    rootCaCrl: crlBytes(text('root_ca_crl'), 'root_ca_crl'),
  };
}
