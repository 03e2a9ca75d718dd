import { ParleyClientError } from '../client-error';
import { linkSignals } from './link-signals';

/**
 * Runs `work` with a signal that aborts when the caller's signal does or when `timeout` ms pass, and turns
 * whatever it throws into a {@link ParleyClientError}: `ABORTED` (the caller gave up; not retryable), `TIMEOUT`
 * (status 0), else `NETWORK_ERROR`. The deadline covers only `work`: a stream whose headers arrived in time
 * may run longer.
 */
export async function withDeadline<T>(
  timeout: number,
  callerSignal: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(
    () =>
      deadline.abort(new ParleyClientError(0, 'TIMEOUT', `Request timed out after ${timeout} ms`)),
    timeout,
  );
  try {
    return await work(linkSignals(callerSignal, deadline.signal));
  } catch (error) {
    throw toTransportError(error, callerSignal, deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** Maps a failure of fetch or of reading a body to the client's one error. */
export function toTransportError(
  error: unknown,
  callerSignal: AbortSignal | undefined,
  deadline?: AbortSignal,
): ParleyClientError {
  if (ParleyClientError.isInstance(error)) return error;
  if (callerSignal?.aborted) return abortedError(callerSignal.reason);
  if (deadline?.aborted && ParleyClientError.isInstance(deadline.reason)) {
    return new ParleyClientError(0, 'TIMEOUT', deadline.reason.message, { cause: error });
  }
  return new ParleyClientError(
    0,
    'NETWORK_ERROR',
    'Network error: the server could not be reached',
    {
      cause: error,
    },
  );
}

/** The error of a call the caller aborted. */
export function abortedError(reason?: unknown): ParleyClientError {
  return new ParleyClientError(0, 'ABORTED', 'The request was aborted', {
    cause: reason,
    retryable: false,
  });
}
