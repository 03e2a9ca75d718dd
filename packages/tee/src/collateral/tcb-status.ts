import { TCB_STATUSES, type TcbStatus } from './tcb-evaluation';

/** A status with the advisories that come with it. */
export interface StatusWithAdvisories {
  status: TcbStatus;
  advisoryIds: string[];
}

const CONFIGURATION = new Set<TcbStatus>([
  'ConfigurationNeeded',
  'ConfigurationAndSWHardeningNeeded',
  'TDRelaunchAdvisedConfigurationNeeded',
]);

/**
 * Converges two statuses as Intel's verifier does: the worse one wins, except that out of date together with
 * a configuration need is `OutOfDateConfigurationNeeded`; advisories are united.
 */
export function convergeStatus(
  a: StatusWithAdvisories,
  b: StatusWithAdvisories,
): StatusWithAdvisories {
  const advisoryIds = [...new Set([...a.advisoryIds, ...b.advisoryIds])].sort();
  const pair = [a.status, b.status];
  if (pair.includes('OutOfDate') && pair.some((status) => CONFIGURATION.has(status))) {
    return { status: 'OutOfDateConfigurationNeeded', advisoryIds };
  }
  const worst = TCB_STATUSES.indexOf(a.status) >= TCB_STATUSES.indexOf(b.status) ? a : b;
  return { status: worst.status, advisoryIds };
}
