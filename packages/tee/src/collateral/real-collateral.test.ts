import { describe, expect, it } from 'vitest';
import { parseTdxQuote } from '../quote/parse-tdx-quote';
import { verifyQuote } from '../quote/verify-quote';
import { SIMULATOR_ROOT_CA_PEM } from '../roots/simulator-root-ca';
import {
  COLLATERAL_TIMES,
  DCAP_QVL_COLLATERAL,
  REAL_QUOTES,
  fixture,
  sprE4Collateral,
} from '../test-fixtures/real-quotes';
import { collateralFromPcs, parseDcapQvlCollateral } from './parse-collateral';
import { verifyPlatformTcb } from './verify-platform-tcb';

const now = COLLATERAL_TIMES.dcapQvl;
const dcapQvl = () => parseDcapQvlCollateral(DCAP_QVL_COLLATERAL);

describe('verifyQuote with Intel collateral (real quotes)', () => {
  it('gives the dcap-qvl quote UpToDate with no advisories, bounded by the collateral dates', () => {
    const result = verifyQuote(REAL_QUOTES.dcapQvl, { now, collateral: dcapQvl() });
    expect(result).toMatchObject({ valid: true, root: 'intel' });
    if (!result.valid) return;
    expect(result.tcb).toMatchObject({
      status: 'UpToDate',
      advisoryIds: [],
      parts: { platform: 'UpToDate', qe: 'UpToDate' },
      fmspc: 'b0c06f000000',
      pceId: '0000',
      tcbEvaluationDataNumber: 17,
      issuedAt: '2025-06-19T10:32:27.000Z',
      nextUpdate: '2025-07-19T10:00:35.000Z',
    });
  });

  it('refuses collateral outside its validity', () => {
    for (const at of [Date.UTC(2025, 5, 1), Date.UTC(2025, 7, 1)]) {
      expect(verifyQuote(REAL_QUOTES.dcapQvl, { now: at, collateral: dcapQvl() })).toMatchObject({
        failure: 'COLLATERAL_EXPIRED',
      });
    }
  });

  it('gives the go-tdx-guest SPR E4 quote what its collateral implies: no TCB level matches', () => {
    // Intel's TCB info requires TDX component 2 at SVN 5; the quote's TEE TCB SVN has 4 (go-tdx-guest's own
    // test zeroes the levels for this reason).
    const result = verifyQuote(REAL_QUOTES.sprE4, {
      now: COLLATERAL_TIMES.sprE4,
      collateral: sprE4Collateral(),
    });
    expect(result).toMatchObject({ valid: false, failure: 'TCB_NOT_SUPPORTED' });
  });

  it('gives the go-tdx-guest v5 quote UpToDate from its TCB info, TDX module TDX_01 included', () => {
    const chain = dcapQvl().tcbInfo.issuerChain.join('\n');
    const tcbInfo = collateralFromPcs({
      tcbInfoResponse: fixture('collateral/go-tdx-guest-sample_tcbinfo_response_v5').toString(),
      tcbInfoIssuerChain: encodeURIComponent(chain),
      qeIdentityResponse: fixture('collateral/go-tdx-guest-sample_qeIdentity_response').toString(),
      qeIdentityIssuerChain: chain,
      pckCrl: fixture('collateral/go-tdx-guest-pckcrl'),
      rootCaCrl: fixture('collateral/go-tdx-guest-rootcrl.der'),
    }).tcbInfo;
    const result = verifyPlatformTcb(REAL_QUOTES.v5, tcbInfo, { now: COLLATERAL_TIMES.v5 });
    expect(result).toMatchObject({
      valid: true,
      tcb: {
        status: 'UpToDate',
        platform: 'UpToDate',
        tdxModule: 'UpToDate',
        fmspc: '90c06f000000',
        tcbDate: '2024-11-13T00:00:00Z',
      },
    });
    // The same TCB info does not fit another platform.
    expect(
      verifyPlatformTcb(REAL_QUOTES.dcapQvl, tcbInfo, { now: COLLATERAL_TIMES.v5 }),
    ).toMatchObject({
      valid: false,
    });
  });
});

describe('tampered collateral (real quotes)', () => {
  const verifyWith = (edit: (collateral: ReturnType<typeof dcapQvl>) => void) => {
    const collateral = dcapQvl();
    edit(collateral);
    return verifyQuote(REAL_QUOTES.dcapQvl, { now, collateral });
  };

  it('rejects a changed TCB info or QE identity, and changed signatures', () => {
    const changeStatus = (body: string) => body.replace('"UpToDate"', '"OutOfDate"');
    expect(verifyWith((c) => (c.tcbInfo.body = changeStatus(c.tcbInfo.body)))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
    expect(verifyWith((c) => (c.qeIdentity.body = changeStatus(c.qeIdentity.body)))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
    expect(verifyWith((c) => (c.tcbInfo.signature[5]! ^= 1))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
    expect(verifyWith((c) => (c.qeIdentity.signature[60]! ^= 1))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
  });

  it('rejects a changed byte in either CRL', () => {
    // These bytes lie inside the signed list (a serial, an extension): still DER, no longer what Intel signed.
    expect(verifyWith((c) => (c.pckCrl[300]! ^= 1))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
    expect(verifyWith((c) => (c.rootCaCrl[190]! ^= 1))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
  });

  it("rejects a changed byte in either CRL's signature", () => {
    // The last byte of a CRL is the last byte of its ECDSA signature's s value.
    expect(verifyWith((c) => (c.pckCrl[c.pckCrl.length - 1]! ^= 1))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
    expect(verifyWith((c) => (c.rootCaCrl[c.rootCaCrl.length - 1]! ^= 1))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
  });

  it("rejects collateral whose issuer chain is not Intel SGX TCB Signing under Intel's root", () => {
    const pckChain = parseTdxQuote(REAL_QUOTES.dcapQvl).signature.pckCertificateChain;
    // Intel's PCK Platform CA chains to Intel's root, but it does not sign collateral.
    expect(verifyWith((c) => (c.tcbInfo.issuerChain = pckChain.slice(1)))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
      message: expect.stringContaining('not signed by Intel SGX TCB Signing') as string,
    });
    expect(verifyWith((c) => (c.qeIdentity.issuerChain = [SIMULATOR_ROOT_CA_PEM]))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
  });

  it('rejects swapped CRLs and collateral for another platform', () => {
    expect(verifyWith((c) => ([c.pckCrl, c.rootCaCrl] = [c.rootCaCrl, c.pckCrl]))).toMatchObject({
      failure: 'COLLATERAL_MISMATCH',
    });
    // Genuine 2023 TCB info for another FMSPC (same signing key, re-certified in 2025): out of date first.
    const sprE4 = sprE4Collateral().tcbInfo;
    expect(
      verifyWith((c) => (c.tcbInfo = { ...sprE4, issuerChain: c.tcbInfo.issuerChain })),
    ).toMatchObject({ failure: 'COLLATERAL_EXPIRED' });
    // Under its own, expired, signing certificate it is refused for the chain.
    expect(verifyWith((c) => (c.tcbInfo = sprE4))).toMatchObject({
      failure: 'COLLATERAL_SIGNATURE',
    });
  });

  it('reports malformed collateral as COLLATERAL_FORMAT', () => {
    expect(() => parseDcapQvlCollateral('{}')).toThrow(/"tcb_info" is missing/);
    expect(
      verifyWith((c) => (c.pckCrl = new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01]))),
    ).toMatchObject({
      failure: 'COLLATERAL_FORMAT',
    });
  });
});
