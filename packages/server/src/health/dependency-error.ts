/** Socket and driver codes that mean a dependency could not be reached, with the words an operator reads. */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'refused the connection',
  ECONNRESET: 'dropped the connection',
  ETIMEDOUT: 'did not answer in time',
  EHOSTUNREACH: 'is unreachable',
  ENETUNREACH: 'is unreachable',
  ENOTFOUND: 'has a host name that does not resolve',
  EAI_AGAIN: 'has a host name that does not resolve',
  '28P01': 'refused the password',
  '28000': 'does not let the user connect',
  '3D000': 'names a database that does not exist',
};

/** The code of a failure or of the first inner failure that has one (AggregateError from dual-stack connects). */
export function failureCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code) return code;
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = failureCode(inner);
      if (found) return found;
    }
  }
  if (error instanceof Error && /timeout|timed out/i.test(error.message)) return 'ETIMEDOUT';
  if (error instanceof Error && error.message === 'no answer') return 'ETIMEDOUT';
  return undefined;
}

/** "refused the connection (ECONNREFUSED)": the cause of a dependency's failure, in words and its code. */
export function describeFailure(error: unknown): string {
  const code = failureCode(error);
  if (code && CAUSES[code]) return `${CAUSES[code]} (${code})`;
  if (code) return `failed (${code})`;
  return `failed (${error instanceof Error ? error.message : String(error)})`;
}

/**
 * A dependency (PostgreSQL, Redis) that could not be used at start-up: names the setting that points at it, so
 * that `parley start` and `parley doctor` say the same one line.
 */
export class DependencyError extends Error {
  readonly setting: string;
  readonly value: string;
  readonly code: string | undefined;

  constructor(setting: string, value: string, cause: unknown) {
    super(`${setting} ${describeFailure(cause)}`, { cause });
    this.name = 'DependencyError';
    this.setting = setting;
    this.value = value;
    this.code = failureCode(cause);
  }
}
