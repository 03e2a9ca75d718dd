import type { X509Certificate } from 'node:crypto';
import type { TdxQuote } from '../quote/tdx-quote';
import type { TrustAnchor } from '../quote/verify-certificate-chain';
import { checkRevocation } from './check-revocation';
import { collateralError } from './collateral-error';
import type { TdxCollateral } from './collateral';
import { evaluatePlatformTcb } from './evaluate-tcb-info';
import { qeIdentitySchema, tdxTcbInfoSchema } from './intel-collateral-schemas';
import { matchQeIdentity } from './match-qe-identity';
import type { TcbEvaluation } from './tcb-evaluation';
import { convergeStatus } from './tcb-status';
import { verifySignedCollateral } from './verify-signed-collateral';

/** What {@link evaluateCollateral} needs: a quote whose PCK chain already verified to `root`. */
export interface CollateralInput {
  quote: TdxQuote;
  /** The verified PCK chain, leaf first. */
  pckChain: readonly X509Certificate[];
  /** The root the PCK chain ended at: the only one collateral may chain to. */
  anchor: TrustAnchor;
  collateral: TdxCollateral;
  now: Date;
  /** Report collateral outside its dates in `expired` instead of failing. */
  allowExpired?: boolean;
}

const earliest = (dates: Date[]) => new Date(Math.min(...dates.map((date) => date.getTime())));
const latest = (dates: Date[]) => new Date(Math.max(...dates.map((date) => date.getTime())));

/**
 * Evaluates a quote's platform with Intel collateral, offline: TCB info and QE identity signed under the PCK
 * chain's own root, CRLs (PCK and root), FMSPC and PCE id from the PCK certificate, the platform's TCB level from its SGX
 * and TDX components, the TDX module identity and the QE identity's TCB; the statuses converge into one.
 *
 * @throws ParleyError whose `details.failure` names the failed check (a `QuoteFailure`).
 */
export function evaluateCollateral(input: CollateralInput): TcbEvaluation {
  const { quote, collateral, now } = input;
  const expired: string[] | undefined = input.allowExpired ? [] : undefined;
  const context = { anchor: input.anchor, now, ...(expired && { expired }) };
  const tcbInfo = verifySignedCollateral(collateral.tcbInfo, tdxTcbInfoSchema, 'TCB info', context);
  const qeIdentity = verifySignedCollateral(
    collateral.qeIdentity,
    qeIdentitySchema,
    'QE identity',
    context,
  );
  if (qeIdentity.document.id !== 'TD_QE') {
    throw collateralError(
      'COLLATERAL_MISMATCH',
      `QE identity ${qeIdentity.document.id} is not TD_QE`,
    );
  }
  const crlDates = checkRevocation({
    pckChain: input.pckChain.filter(
      (certificate) => !certificate.raw.equals(input.anchor.certificate.raw),
    ),
    root: input.anchor.certificate,
    signers: [...tcbInfo.signers, ...qeIdentity.signers],
    pckCrl: collateral.pckCrl,
    rootCaCrl: collateral.rootCaCrl,
    now,
    ...(expired && { expired }),
  });
  const qe = matchQeIdentity(qeIdentity.document, quote.qe);
  const platform = evaluatePlatformTcb(tcbInfo.document, quote, input.pckChain[0]!, qe.status);
  // The verdict converges platform (TDX module and relaunch included) and QE; the advisories are the
  // matched platform level's, as Intel's verifier reports them.
  const { status } = convergeStatus(platform, qe);
  const documents = [tcbInfo.document, qeIdentity.document];
  return {
    status,
    advisoryIds: [...platform.advisoryIds].sort(),
    partAdvisoryIds: {
      platform: platform.advisoryIds,
      ...(platform.tdxModuleAdvisoryIds && { tdxModule: platform.tdxModuleAdvisoryIds }),
      qe: qe.advisoryIds,
    },
    parts: {
      platform: platform.platform,
      ...(platform.tdxModule && { tdxModule: platform.tdxModule }),
      qe: qe.status,
    },
    tcbDate: platform.tcbDate,
    fmspc: platform.fmspc,
    pceId: platform.pceId,
    issuedAt: latest([
      ...documents.map((doc) => new Date(doc.issueDate)),
      crlDates.issuedAt,
    ]).toISOString(),
    nextUpdate: earliest([
      ...documents.map((doc) => new Date(doc.nextUpdate)),
      crlDates.nextUpdate,
    ]).toISOString(),
    tcbEvaluationDataNumber: tcbInfo.document.tcbEvaluationDataNumber,
    ...(expired?.length && { collateralExpired: expired }),
  };
}
