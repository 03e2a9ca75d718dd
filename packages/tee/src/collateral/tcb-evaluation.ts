/** Intel's TCB statuses, best first. */
export const TCB_STATUSES = [
  'UpToDate',
  'SWHardeningNeeded',
  'ConfigurationNeeded',
  'ConfigurationAndSWHardeningNeeded',
  /** TD 1.5: the platform is up to date but this TD was launched before the update; relaunching fixes it. */
  'TDRelaunchAdvised',
  'TDRelaunchAdvisedConfigurationNeeded',
  'OutOfDate',
  'OutOfDateConfigurationNeeded',
  'Revoked',
] as const;

/** A TCB status as Intel's collateral names it. */
export type TcbStatus = (typeof TCB_STATUSES)[number];

/** What the collateral says about the platform that produced a quote. */
export interface TcbEvaluation {
  /** The converged status of the platform (SGX and TDX components), the TDX module and the QE. */
  status: TcbStatus;
  /**
   * Intel security advisories (`INTEL-SA-…`) of the matched platform TCB level, as Intel's verifier reports
   * them (the TDX module's and QE's levels are in `partAdvisoryIds`).
   */
  advisoryIds: string[];
  /** Advisories of each part's matched level. */
  partAdvisoryIds: { platform: string[]; tdxModule?: string[]; qe: string[] };
  /** Status of each part, before convergence. */
  parts: { platform: TcbStatus; tdxModule?: TcbStatus; qe: TcbStatus };
  /** The `tcbDate` of the matched platform TCB level. */
  tcbDate: string;
  /** FMSPC and PCE id read from the PCK certificate (hex, lower case). */
  fmspc: string;
  pceId: string;
  /** The latest issue date among the collateral: the verdict is not older than this. */
  issuedAt: string;
  /** The earliest next update among the collateral: after it, fetch fresh collateral. */
  nextUpdate: string;
  /** `tcbEvaluationDataNumber` of the TCB info. */
  tcbEvaluationDataNumber: number;
  /**
   * With `allowExpiredCollateral`: what was outside its dates (TCB info, QE identity, CRLs). The verdict is
   * then only as fresh as `issuedAt`: fetch new collateral.
   */
  collateralExpired?: string[];
}
