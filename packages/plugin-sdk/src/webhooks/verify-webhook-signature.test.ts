import { describe, expect, it } from 'vitest';
import { signWebhook } from './sign-webhook';
import {
  verifyWebhookSignature,
  type VerifyWebhookSignatureOptions,
} from './verify-webhook-signature';

const secret = 'whsec-test';
const rawBody = '{"event":"ping"}';
const signedAt = 1_700_000_000;
const headers = signWebhook({ rawBody, secret, timestamp: signedAt });

function verify(overrides: Partial<VerifyWebhookSignatureOptions> = {}) {
  return verifyWebhookSignature({
    rawBody,
    secret,
    signatureHeader: headers['x-parley-signature'],
    timestampHeader: headers['x-parley-timestamp'],
    now: () => signedAt * 1000,
    ...overrides,
  });
}

describe('verifyWebhookSignature', () => {
  it('accepts a fresh signature, over a string or the same bytes', () => {
    expect(verify()).toEqual({ ok: true });
    expect(verify({ rawBody: new TextEncoder().encode(rawBody) })).toEqual({ ok: true });
  });

  it('accepts upper-case hex', () => {
    const signatureHeader = `v1=${headers['x-parley-signature'].slice(3).toUpperCase()}`;
    expect(verify({ signatureHeader })).toEqual({ ok: true });
  });

  it('refuses a changed body, timestamp or secret as a mismatch', () => {
    expect(verify({ rawBody: '{"event":"pong"}' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify({ timestampHeader: String(signedAt + 1) })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verify({ secret: 'other' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify({ secret: '' })).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('reports missing headers', () => {
    expect(verify({ signatureHeader: undefined })).toEqual({ ok: false, reason: 'missing' });
    expect(verify({ timestampHeader: '' })).toEqual({ ok: false, reason: 'missing' });
  });

  it('reports malformed headers, wrong-length signatures included', () => {
    const hex = headers['x-parley-signature'].slice(3);
    for (const signatureHeader of [
      hex,
      `v2=${hex}`,
      `v1=${hex.slice(2)}`,
      `v1=${hex}ab`,
      'v1=zz',
    ]) {
      expect(verify({ signatureHeader })).toEqual({ ok: false, reason: 'malformed' });
    }
    for (const timestampHeader of ['soon', '-5', '1.5', '1e9']) {
      expect(verify({ timestampHeader })).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('accepts the edges of the window and refuses a replay outside it', () => {
    const at = (seconds: number) => () => (signedAt + seconds) * 1000;
    expect(verify({ now: at(300) })).toEqual({ ok: true });
    expect(verify({ now: at(301) })).toEqual({ ok: false, reason: 'expired' });
    expect(verify({ now: at(3_600), toleranceSeconds: 3_600 })).toEqual({ ok: true });
    expect(verify({ now: at(1), toleranceSeconds: 0 })).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses timestamps from the future beyond the tolerance', () => {
    expect(verify({ now: () => (signedAt - 300) * 1000 })).toEqual({ ok: true });
    expect(verify({ now: () => (signedAt - 301) * 1000 })).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('refuses an expired request even when its signature is right, before computing it', () => {
    const fresh = signWebhook({ rawBody, secret, timestamp: signedAt - 10_000 });
    expect(
      verify({
        signatureHeader: fresh['x-parley-signature'],
        timestampHeader: fresh['x-parley-timestamp'],
      }),
    ).toEqual({ ok: false, reason: 'expired' });
  });

  it('rejects a negative tolerance as a programming error', () => {
    expect(() => verify({ toleranceSeconds: -1 })).toThrow(RangeError);
    expect(() => verify({ toleranceSeconds: Number.NaN })).toThrow(RangeError);
  });
});
