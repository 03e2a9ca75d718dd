import { X509Certificate } from 'node:crypto';
import { anchorsFor } from '../quote/pinned-anchors';
import { failed, type QuoteFailure, type VerifyQuoteOptions } from '../quote/quote-verification';
import { verifyQuote } from '../quote/verify-quote';
import { verifyCertificateChain } from '../quote/verify-certificate-chain';
import { failureOf } from './collateral-error';
import type { SignedCollateral } from './collateral';
import { evaluatePlatformTcb, type PlatformTcb } from './evaluate-tcb-info';
import { tdxTcbInfoSchema } from './intel-collateral-schemas';
import { verifySignedCollateral } from './verify-signed-collateral';

/** The outcome of {@link verifyPlatformTcb}. */
export type PlatformTcbVerification =
  { valid: true; tcb: PlatformTcb } | { valid: false; failure: QuoteFailure; message: string };

/**
 * Verifies a quote and judges its platform with a TCB info alone (signed under the quote's own root and
 * current at `now`): TCB level, TDX module, status and advisories. Without QE identity and CRLs this is not the full
 * verdict (a revoked PCK or an outdated QE goes unnoticed); use `verifyQuote` with full collateral for that.
 *
 * @example
 * const tcbInfo = collateralFromPcs({ … }).tcbInfo;
 * const result = verifyPlatformTcb(quote, tcbInfo);
 */
export function verifyPlatformTcb(
  quote: Uint8Array | string,
  tcbInfo: SignedCollateral,
  options: Omit<VerifyQuoteOptions, 'collateral'> = {},
): PlatformTcbVerification {
  const verified = verifyQuote(quote, options);
  if (!verified.valid) return verified;
  const now = new Date(options.now ?? Date.now()); // valid: verifyQuote checked it
  try {
    // The PCK chain verified in verifyQuote; its root is the only one the TCB info may chain to.
    const chain = verifyCertificateChain(
      verified.quote.signature.pckCertificateChain,
      anchorsFor(options),
      now,
    );
    if (!chain.valid) return failed(chain.failure, chain.message) as PlatformTcbVerification;
    const info = verifySignedCollateral(tcbInfo, tdxTcbInfoSchema, 'TCB info', {
      anchor: { name: chain.anchor, certificate: chain.root },
      now,
    });
    const leaf = new X509Certificate(verified.quote.signature.pckCertificateChain[0]!);
    return { valid: true, tcb: evaluatePlatformTcb(info.document, verified.quote, leaf) };
  } catch (error) {
    return failed(
      failureOf(error) ?? 'COLLATERAL_FORMAT',
      (error as Error).message,
    ) as PlatformTcbVerification;
  }
}
