import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../quote/verify-quote';
import { COLLATERAL_TIMES, REAL_QUOTES, fixture } from '../test-fixtures/real-quotes';
import { fetchCollateral, fetchCollateralForQuote } from './fetch-collateral';

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
});
