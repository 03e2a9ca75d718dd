/**
 * An AbortSignal that aborts, with the same reason, as soon as any of `signals` does. Written by hand rather
 * than `AbortSignal.any` so that the client also runs on browsers and runtimes that lack it.
 */
export function linkSignals(...signals: (AbortSignal | undefined)[]): AbortSignal {
  const controller = new AbortController();
  for (const signal of signals) {
    if (!signal) continue;
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener('abort', () => controller.abort(signal.reason), {
      once: true,
      signal: controller.signal,
    });
  }
  return controller.signal;
}
