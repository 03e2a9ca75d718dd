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
  fetch?: (url: string, init?: { signal?: AbortSignal }) => Promise<Response>;
  /** Time allowed for each request (default 10 s); a request that takes longer is aborted and retried. */
  timeoutMs?: number;
  /** Retries after a network error, a timeout, 429 or a 5xx answer (default 2); 4xx answers are final. */
  retries?: number;
  /** Delay before the first retry, doubled for each next one (default 250 ms). */
  retryDelayMs?: number;
  /** Reuse collateral fetched before (see {@link createCollateralCache}). */
  cache?: CollateralCache;
}

/** Collateral kept between fetches, until shortly before its `nextUpdate`. */
export interface CollateralCache {
  get(key: string): Promise<TdxCollateral> | undefined;
  set(key: string, value: Promise<TdxCollateral>): void;
  delete(key: string): void;
}

/**
 * An in-memory collateral cache. An entry is served until `refreshBeforeMs` (default one hour) before the
 * earliest `nextUpdate` of its TCB info and QE identity, so collateral is renewed early, never served stale;
 * concurrent fetches of the same collateral share one request. Failed fetches are not kept.
 *
 * @example
 * const cache = createCollateralCache();
 * const collateral = await fetchCollateralForQuote(quote, { baseUrl: PCS_URL, cache });
 */
export function createCollateralCache(
  options: { refreshBeforeMs?: number; clock?: () => number } = {},
): CollateralCache {
  const refreshBefore = options.refreshBeforeMs ?? 3_600_000;
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, { value: Promise<TdxCollateral>; until?: number }>();
  const untilOf = (collateral: TdxCollateral) => {
    const dates = [collateral.tcbInfo.body, collateral.qeIdentity.body].map((body) => {
      try {
        return Date.parse((JSON.parse(body) as { nextUpdate?: string }).nextUpdate ?? '');
      } catch {
        return Number.NaN;
      }
    });
    const earliest = Math.min(...dates);
    return Number.isFinite(earliest) ? earliest - refreshBefore : 0;
  };
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.until !== undefined && clock() >= entry.until) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key, value) {
      const entry: { value: Promise<TdxCollateral>; until?: number } = { value };
      entries.set(key, entry);
      value.then(
        (collateral) => {
          entry.until = untilOf(collateral);
        },
        () => {
          if (entries.get(key) === entry) entries.delete(key);
        },
      );
    },
    delete(key) {
      entries.delete(key);
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const retryable = (status: number) => status === 429 || status >= 500;

async function get(options: FetchCollateralOptions, url: string) {
  const retries = options.retries ?? 2;
  let delay = options.retryDelayMs ?? 250;
  for (let attempt = 0; ; attempt += 1) {
    let failure: string;
    try {
      const response = await (options.fetch ?? fetch)(url, {
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      if (response.ok) return response;
      failure = `${response.status}`;
      if (!retryable(response.status) || attempt >= retries) {
        throw new ParleyError('UNAVAILABLE', `Collateral request failed: ${failure} for ${url}`);
      }
    } catch (error) {
      if (ParleyError.isInstance(error)) throw error;
      failure = (error as Error).name === 'TimeoutError' ? 'timed out' : 'network error';
      if (attempt >= retries) {
        throw new ParleyError('UNAVAILABLE', `Collateral request failed: ${failure} for ${url}`);
      }
    }
    await sleep(delay);
    delay *= 2;
  }
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
 * (`verifyQuote(quote, { collateral })`), so the source need not be trusted, only available. Each request has a
 * timeout and is retried on network errors, timeouts, 429 and 5xx; with `cache`, collateral is reused until
 * shortly before its next update.
 *
 * @throws ParleyError `UNAVAILABLE` when a request fails; `BAD_REQUEST` when a response is malformed.
 * @example
 * const collateral = await fetchCollateral({ baseUrl: 'https://pccs.example:8081' }, 'b0c06f000000');
 */
export function fetchCollateral(
  options: FetchCollateralOptions,
  fmspc: string,
  ca: 'platform' | 'processor' = 'platform',
): Promise<TdxCollateral> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const key = `${base}\0${fmspc.toLowerCase()}\0${ca}`;
  const cached = options.cache?.get(key);
  if (cached) return cached;
  const fetched = fetchFresh(options, base, fmspc, ca);
  options.cache?.set(key, fetched);
  return fetched;
}

async function fetchFresh(
  options: FetchCollateralOptions,
  base: string,
  fmspc: string,
  ca: 'platform' | 'processor',
): Promise<TdxCollateral> {
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
