import { ERROR_CODES, isErrorCode } from '@parley/core';
import { ParleyClientError } from '../client-error';

/**
 * The error for an `event: error` block: the reply failed after the stream had started (status 200), so the
 * status is the one the server's code maps to (`MODEL_ERROR` → 502), which also makes `retryable` meaningful.
 */
export function streamEventError(code: string, message: string): ParleyClientError {
  return new ParleyClientError(isErrorCode(code) ? ERROR_CODES[code] : 500, code, message);
}

/** The error for a stream that ended before `done` and could not be resumed. */
export function streamInterruptedError(
  reason: string,
  lastEventId: string | undefined,
  cause?: unknown,
): ParleyClientError {
  return new ParleyClientError(
    0,
    'STREAM_INTERRUPTED',
    `The stream ended before "done": ${reason}`,
    {
      details: { lastEventId },
      cause,
      // The reply is still stored on the server: read it from the channel's history rather than posting again.
      retryable: false,
    },
  );
}
