import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { INTEL_SGX_ROOT_CA_PEM } from './intel-sgx-root-ca';
import { SIMULATOR_ROOT_CA_PEM } from './simulator-root-ca';

describe('pinned roots', () => {
  it("pins Intel's published SGX Root CA, byte for byte", () => {
    const root = new X509Certificate(INTEL_SGX_ROOT_CA_PEM);
    expect(root.fingerprint256).toBe(
      '44:A0:19:6B:2B:99:F8:89:B8:E1:49:E9:5B:80:7A:35:0E:74:24:96:43:99:E8:85:A7:CB:B8:CC:FA:B6:74:D3',
    );
    expect(root.subject).toContain('CN=Intel SGX Root CA');
  });

  it('ships a self-signed simulator root CA that says what it is', () => {
    const root = new X509Certificate(SIMULATOR_ROOT_CA_PEM);
    expect(root.ca).toBe(true);
    expect(root.verify(root.publicKey)).toBe(true);
    expect(root.subject).toContain('not trusted in production');
  });
});
