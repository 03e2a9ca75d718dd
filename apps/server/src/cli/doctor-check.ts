/** The outcome of one `parley doctor` check. */
export interface DoctorResult {
  status: 'ok' | 'warn' | 'fail';
  /** What was checked and what was found, naming the setting and its value (secrets hidden). */
  message: string;
  /** What to do about it (warn and fail). */
  fix?: string;
}

/** The readable line of one result. */
export function formatDoctorLine(result: DoctorResult): string {
  const mark = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' }[result.status];
  const line = `${mark} ${result.message}`;
  return result.fix && result.status !== 'ok' ? `${line}\n     fix: ${result.fix}` : line;
}

/** Runs `check`, turning a throw into a failure, and gives up after `timeoutMs`. */
export async function runCheck(
  check: () => Promise<DoctorResult>,
  timeoutMs: number,
  label: string,
): Promise<DoctorResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<DoctorResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: 'fail', message: `${label}: no answer in ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      check().catch((error: unknown): DoctorResult => ({
        status: 'fail',
        message: `${label}: ${error instanceof Error ? error.message : String(error)}`,
      })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
