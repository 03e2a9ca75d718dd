import { ParleyError } from '@parley/core';
import { toModelError } from './to-model-error';

/**
 * The bound on a streamed model reply's silence, over either transport: `timeoutMs` of silence
 * before the first piece or between pieces aborts `signal` and ends the reply with `TIMEOUT`; the caller's own
 * signal aborting ends it with that signal's reason. Time the consumer spends on a piece does not count: call
 * `pause` when a piece arrives and `arm` when the next one is awaited. Throws at once if `callerSignal` is
 * already aborted.
 */
export function replyDeadline(callerSignal: AbortSignal | undefined, timeoutMs: number) {
  callerSignal?.throwIfAborted();
  const stop = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  return {
    /** Aborted on a timeout, on the caller's abort, or by `cancel`. */
    signal: callerSignal ? AbortSignal.any([callerSignal, stop.signal]) : stop.signal,
    /** Starts the wait for the next piece. */
    arm(): void {
      timer = setTimeout(() => {
        timedOut = true;
        stop.abort(new DOMException(`No answer within ${timeoutMs} ms`, 'TimeoutError'));
      }, timeoutMs);
    },
    /** Stops the wait: a piece arrived, or the reply is over. */
    pause(): void {
      clearTimeout(timer);
    },
    /** Aborts `signal` (the request is hung up) without a timeout. */
    cancel(): void {
      stop.abort();
    },
    /** Whether the reply was cut short by a timeout or by the caller, even if the stream ended cleanly. */
    cutShort(): boolean {
      return timedOut || callerSignal?.aborted === true;
    },
    /** The error to throw for `error` (or for a reply cut short): TIMEOUT, the caller's reason, or MODEL_ERROR. */
    settle(error: unknown): unknown {
      if (timedOut) {
        return new ParleyError('TIMEOUT', `The model did not answer within ${timeoutMs} ms`, {
          cause: error ?? stop.signal.reason,
        });
      }
      if (callerSignal?.aborted) return callerSignal.reason;
      return toModelError(error);
    },
  };
}
