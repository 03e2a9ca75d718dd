import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyGithubSignature } from './verify-github-signature';

const secret = "It's a Secret to Everybody";
const body = 'Hello, World!';
// The example from GitHub's documentation on validating webhook deliveries.
const documented = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

describe('verifyGithubSignature', () => {
  it("accepts GitHub's documented example", () => {
    expect(verifyGithubSignature({ rawBody: body, signatureHeader: documented, secret })).toBe(
      true,
    );
  });

  it('accepts the raw body as bytes and the hex in upper case', () => {
    const rawBody = new TextEncoder().encode(body);
    const upper = `sha256=${documented.slice(7).toUpperCase()}`;
    expect(verifyGithubSignature({ rawBody, signatureHeader: upper, secret })).toBe(true);
  });

  it('refuses a changed body, another secret, or a missing secret', () => {
    expect(
      verifyGithubSignature({ rawBody: `${body} `, signatureHeader: documented, secret }),
    ).toBe(false);
    expect(
      verifyGithubSignature({ rawBody: body, signatureHeader: documented, secret: 'other' }),
    ).toBe(false);
    const emptyKeySignature = `sha256=${createHmac('sha256', '').update(body).digest('hex')}`;
    for (const missing of ['', undefined, null]) {
      expect(
        verifyGithubSignature({
          rawBody: body,
          signatureHeader: emptyKeySignature,
          secret: missing,
        }),
      ).toBe(false);
    }
  });

  it('refuses missing and malformed headers without throwing', () => {
    const hex = documented.slice(7);
    for (const signatureHeader of [
      undefined,
      null,
      '',
      hex,
      `sha1=${hex}`,
      `sha256=${hex.slice(0, -2)}`,
      `sha256=${hex}00`,
      `sha256=${hex.slice(0, -1)}g`,
      `sha256=${hex.slice(0, -1)}`,
    ]) {
      expect(verifyGithubSignature({ rawBody: body, signatureHeader, secret })).toBe(false);
    }
  });
});
