import { X509Certificate } from 'node:crypto';
import { ParleyError } from '@parley/core';
import { parseTdxQuote } from '../quote/parse-tdx-quote';
import { certificateFields } from './certificate-fields';
import type { TdxCollateral } from './collateral';
import { collateralFromPcs } from './parse-collateral';
import { parseSgxExtensions, SGX_EXTENSION_OID } from './sgx-extensions';

/** Options of {@link fetchCollateral}. */
export interface FetchCollateralOptions {
  /** Intel PCS (`https://api.trustedservices.intel.com`) or a PCCS base URL; the caller chooses. */
  baseUrl: string;
  /** Root CA CRL location (default: `<baseUrl>/sgx/certification/v4/rootcacrl`, as PCCS serves it). */
  rootCaCrlUrl?: string;
  /** Replaces global `fetch` (tests, proxies, a PCCS with its own TLS settings). */
  fetch?: (url: string) => Promise<Response>;
}

async function get(options: FetchCollateralOptions, url: string) {
  const response = await (options.fetch ?? fetch)(url);
  if (!response.ok) {
    throw new ParleyError(
      'UNAVAILABLE',
      `Collateral request failed: ${response.status} for ${url}`,
    );
  }
  return response;
}

/** The first of `names` the response carries (PCS and PCCS versions name some headers differently). */
const header = (response: Response, ...names: string[]) => {
  const value = names.map((name) => response.headers.get(name)).find(Boolean);
  if (!value) throw new ParleyError('UNAVAILABLE', `Collateral response has no ${names[0]} header`);
  return value;
};

/** A CRL body as served: DER, or (PCCS) its hex text. */
async function crlBody(response: Response): Promise<Uint8Array | string> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes).trim();
  return /^([0-9a-fA-F]{2})+$/.test(text) ? text : bytes;
}

/**
 * Fetches TDX collateral for one platform from Intel PCS or a PCCS (API v4): TCB info for `fmspc`, the TD QE
 * identity, the PCK CRL of `ca` and the root CA CRL. What comes back is verified only when it is used
 * (`verifyQuote(quote, { collateral })`), so the source need not be trusted, only available.
 *
 * @throws ParleyError `UNAVAILABLE` when a request fails; `BAD_REQUEST` when a response is malformed.
 * @example
 * const collateral = await fetchCollateral({ baseUrl: 'https://pccs.example:8081' }, 'b0c06f000000');
 */
export async function fetchCollateral(
  options: FetchCollateralOptions,
  fmspc: string,
  ca: 'platform' | 'processor' = 'platform',
): Promise<TdxCollateral> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const [tcb, qe, pckCrl, rootCrl] = await Promise.all([
    get(options, `${base}/tdx/certification/v4/tcb?fmspc=${encodeURIComponent(fmspc)}`),
    get(options, `${base}/tdx/certification/v4/qe/identity`),
    get(options, `${base}/sgx/certification/v4/pckcrl?ca=${ca}&encoding=der`),
    get(options, options.rootCaCrlUrl ?? `${base}/sgx/certification/v4/rootcacrl`),
  ]);
  return collateralFromPcs({
    tcbInfoResponse: await tcb.text(),
    tcbInfoIssuerChain: header(tcb, 'TCB-Info-Issuer-Chain', 'SGX-TCB-Info-Issuer-Chain'),
    qeIdentityResponse: await qe.text(),
    qeIdentityIssuerChain: header(qe, 'SGX-Enclave-Identity-Issuer-Chain'),
    pckCrl: await crlBody(pckCrl),
    rootCaCrl: await crlBody(rootCrl),
  });
}

/**
 * Fetches the collateral a quote needs: FMSPC from its PCK certificate's SGX extension, the CA (platform or
 * processor) from the certificate's issuer.
 *
 * @example
 * const collateral = await fetchCollateralForQuote(agent.attestation, { baseUrl: PCS_URL });
 * const result = verifyQuote(agent.attestation, { collateral });
 */
export async function fetchCollateralForQuote(
  quote: Uint8Array | string,
  options: FetchCollateralOptions,
): Promise<TdxCollateral> {
  const [leafPem] = parseTdxQuote(quote).signature.pckCertificateChain;
  if (!leafPem) throw new ParleyError('BAD_REQUEST', 'The quote carries no PCK certificate');
  const leaf = new X509Certificate(leafPem);
  const { fmspc } = parseSgxExtensions(
    certificateFields(leaf.raw).extensions.get(SGX_EXTENSION_OID),
  );
  const ca = /Processor/i.test(leaf.issuer) ? 'processor' : 'platform';
  return fetchCollateral(options, fmspc, ca);
}
