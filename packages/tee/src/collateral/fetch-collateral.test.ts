import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../quote/verify-quote';
import { COLLATERAL_TIMES, REAL_QUOTES, fixture } from '../test-fixtures/real-quotes';
import {
  createCollateralCache,
  fetchCollateral,
  fetchCollateralForQuote,
} from './fetch-collateral';

const chain = fixture('collateral/go-tdx-guest-tcb-signing-chain.pem').toString();
const PCS = 'https://pcs.test';

/** Serves the go-tdx-guest PCS responses the way PCS does, headers included; records every URL. */
function fakePcs(rootCrlAsHex = false) {
  const urls: string[] = [];
  const responses: Record<string, () => Response> = {
    [`${PCS}/tdx/certification/v4/tcb?fmspc=50806f000000`]: () =>
      new Response(fixture('collateral/go-tdx-guest-sample_tcbInfo_response'), {
        headers: { 'TCB-Info-Issuer-Chain': encodeURIComponent(chain) },
      }),
    [`${PCS}/tdx/certification/v4/qe/identity`]: () =>
      new Response(fixture('collateral/go-tdx-guest-sample_qeIdentity_response'), {
        headers: { 'SGX-Enclave-Identity-Issuer-Chain': encodeURIComponent(chain) },
      }),
    [`${PCS}/sgx/certification/v4/pckcrl?ca=platform&encoding=der`]: () =>
      new Response(fixture('collateral/go-tdx-guest-pckcrl')),
    [`${PCS}/sgx/certification/v4/rootcacrl`]: () => {
      const der = fixture('collateral/go-tdx-guest-rootcrl.der');
      return new Response(rootCrlAsHex ? der.toString('hex') : der);
    },
  };
  const fetch = (url: string) => {
    urls.push(url);
    return Promise.resolve(responses[url]?.() ?? new Response('not found', { status: 404 }));
  };
  return { fetch, urls };
}

describe('fetchCollateral', () => {
  it("fetches what a quote needs, from its PCK certificate's FMSPC and CA, and it verifies", async () => {
    const pcs = fakePcs();
    const collateral = await fetchCollateralForQuote(REAL_QUOTES.sprE4, {
      baseUrl: `${PCS}/`,
      fetch: pcs.fetch,
    });
    expect(pcs.urls).toHaveLength(4);
    const result = verifyQuote(REAL_QUOTES.sprE4, { now: COLLATERAL_TIMES.sprE4, collateral });
    // Signatures, CRLs and dates all pass; the platform then matches no TCB level (see real-collateral tests).
    expect(result).toMatchObject({ failure: 'TCB_NOT_SUPPORTED' });
  });

  it('reads a root CRL served as hex, as PCCS does', async () => {
    const pcs = fakePcs(true);
    const collateral = await fetchCollateral({ baseUrl: PCS, fetch: pcs.fetch }, '50806f000000');
    expect(Buffer.from(collateral.rootCaCrl)).toEqual(
      fixture('collateral/go-tdx-guest-rootcrl.der'),
    );
  });

  it('fails UNAVAILABLE on an HTTP error and names the URL', async () => {
    const pcs = fakePcs();
    await expect(
      fetchCollateral({ baseUrl: PCS, fetch: pcs.fetch }, 'ffffffffffff'),
    ).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('fmspc=ffffffffffff') as string,
    });
  });

  it('retries 5xx answers and network errors, then succeeds; gives up after the retries', async () => {
    const pcs = fakePcs();
    let failures = 3;
    const flaky = (url: string) => {
      if (failures > 0) {
        failures -= 1;
        return failures % 2
          ? Promise.resolve(new Response('busy', { status: 503 }))
          : Promise.reject(new TypeError('fetch failed'));
      }
      return pcs.fetch(url);
    };
    await expect(
      fetchCollateral({ baseUrl: PCS, fetch: flaky, retries: 3, retryDelayMs: 1 }, '50806f000000'),
    ).resolves.toMatchObject({ pckCrl: expect.any(Uint8Array) as Uint8Array });
    const down = () => Promise.resolve(new Response('down', { status: 500 }));
    await expect(
      fetchCollateral({ baseUrl: PCS, fetch: down, retries: 2, retryDelayMs: 1 }, '50806f000000'),
    ).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('500') as string,
    });
  });

  it('aborts a request that hangs past its timeout, and says so', async () => {
    const hang = (_url: string, init?: { signal?: AbortSignal }) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error));
      });
    await expect(
      fetchCollateral(
        { baseUrl: PCS, fetch: hang, timeoutMs: 20, retries: 1, retryDelayMs: 1 },
        '50806f000000',
      ),
    ).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('timed out') as string,
    });
  });

  it('serves collateral from the cache until shortly before its next update, sharing concurrent fetches', async () => {
    const pcs = fakePcs();
    let now = Date.parse('2023-07-01T00:00:00Z');
    const cache = createCollateralCache({ refreshBeforeMs: 3_600_000, clock: () => now });
    const options = { baseUrl: PCS, fetch: pcs.fetch, cache };
    const [a, b] = await Promise.all([
      fetchCollateral(options, '50806f000000'),
      fetchCollateral(options, '50806f000000'),
    ]);
    expect(a).toBe(b);
    expect(pcs.urls).toHaveLength(4);
    await fetchCollateral(options, '50806f000000');
    expect(pcs.urls).toHaveLength(4);
    // Past (nextUpdate - 1 hour) the entry is renewed.
    const body = JSON.parse(a.tcbInfo.body) as { nextUpdate: string };
    now = Date.parse(body.nextUpdate) - 1_000;
    await fetchCollateral(options, '50806f000000');
    expect(pcs.urls).toHaveLength(8);
  });
});
