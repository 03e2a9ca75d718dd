import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { collateralFromPcs } from '../collateral/parse-collateral';
import type { TdxCollateral } from '../collateral/collateral';

/** Fixtures from ../../test/fixtures/tdx (sources and licences in its README). Tests only. */
const folder = fileURLToPath(new URL('../../test/fixtures/tdx/', import.meta.url));

/** Bytes of a fixture file. */
export function fixture(name: string): Buffer {
  return readFileSync(`${folder}${name}`);
}

/** The three real quotes. */
export const REAL_QUOTES = {
  dcapQvl: fixture('dcap-qvl-tdx_quote.bin'),
  sprE4: fixture('go-tdx-guest-tdx_prod_quote_SPR_E4.bin'),
  v5: fixture('go-tdx-guest-quote_v5_sample-v5.bin'),
};

/** Times inside each quote's collateral validity. */
export const COLLATERAL_TIMES = {
  dcapQvl: Date.UTC(2025, 6, 1),
  sprE4: Date.UTC(2023, 6, 1),
  v5: Date.UTC(2026, 1, 3),
};

/** The dcap-qvl collateral JSON (text). */
export const DCAP_QVL_COLLATERAL = fixture(
  'collateral/dcap-qvl-tdx_quote_collateral.json',
).toString('utf8');

/** go-tdx-guest's PCS responses for the SPR E4 quote, with the 2018-2025 TCB signing chain. */
export function sprE4Collateral(): TdxCollateral {
  const chain = fixture('collateral/go-tdx-guest-tcb-signing-chain.pem').toString('utf8');
  return collateralFromPcs({
    tcbInfoResponse: fixture('collateral/go-tdx-guest-sample_tcbInfo_response').toString('utf8'),
    tcbInfoIssuerChain: chain,
    qeIdentityResponse: fixture('collateral/go-tdx-guest-sample_qeIdentity_response').toString(
      'utf8',
    ),
    qeIdentityIssuerChain: chain,
    pckCrl: fixture('collateral/go-tdx-guest-pckcrl'),
    rootCaCrl: fixture('collateral/go-tdx-guest-rootcrl.der'),
  });
}
