import { ParleyError } from '@parley/core';
import type { QuoteFailure } from '../quote/quote-verification';

/** A collateral check that failed: a `BAD_REQUEST` ParleyError whose `details.failure` names the check. */
export function collateralError(failure: QuoteFailure, message: string): ParleyError {
  return new ParleyError('BAD_REQUEST', message, { details: { failure } });
}

/** The failure named by a {@link collateralError}, or undefined for any other error. */
export function failureOf(error: unknown): QuoteFailure | undefined {
  if (!ParleyError.isInstance(error)) return undefined;
  return (error.details as { failure?: QuoteFailure } | undefined)?.failure;
}
