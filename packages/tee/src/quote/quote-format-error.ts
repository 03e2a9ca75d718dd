import { ParleyError } from '@parley/core';

/**
 * The one error the quote parser throws: a `BAD_REQUEST` ParleyError whose `details.failure` is `FORMAT`, so a
 * caller can tell a malformed quote from any other problem.
 */
export function quoteFormatError(reason: string): ParleyError {
  return new ParleyError('BAD_REQUEST', `Malformed TDX quote: ${reason}`, {
    details: { failure: 'FORMAT' },
  });
}

/** Whether `error` is the parser's own {@link quoteFormatError}. */
export function isQuoteFormatError(error: unknown): error is ParleyError {
  return (
    ParleyError.isInstance(error) &&
    (error.details as { failure?: unknown } | undefined)?.failure === 'FORMAT'
  );
}
