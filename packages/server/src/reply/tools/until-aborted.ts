/**
 * `work`, or a rejection with the signal's reason as soon as `signal` aborts. The work itself is not stopped (a
 * plugin's handler that ignores its signal runs on); its late outcome is absorbed, never an unhandled rejection.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
