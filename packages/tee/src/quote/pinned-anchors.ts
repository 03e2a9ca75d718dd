import { X509Certificate } from 'node:crypto';
import { INTEL_SGX_ROOT_CA_PEM } from '../roots/intel-sgx-root-ca';
import { SIMULATOR_ROOT_CA_PEM } from '../roots/simulator-root-ca';
import type { TrustAnchor } from './verify-certificate-chain';
import type { VerifyQuoteOptions } from './quote-verification';

let pinned: { intel: TrustAnchor; simulator: TrustAnchor } | undefined;

/** The roots a policy trusts. Parsed once, on first use, so importing the package costs nothing. */
export function anchorsFor(options: VerifyQuoteOptions): TrustAnchor[] {
  pinned ??= {
    intel: { name: 'intel', certificate: new X509Certificate(INTEL_SGX_ROOT_CA_PEM) },
    simulator: { name: 'simulator', certificate: new X509Certificate(SIMULATOR_ROOT_CA_PEM) },
  };
  const extra = (options.extraRoots ?? []).map((pem): TrustAnchor => ({
    name: 'custom',
    certificate: new X509Certificate(pem),
  }));
  return [pinned.intel, ...(options.allowSimulator ? [pinned.simulator] : []), ...extra];
}
