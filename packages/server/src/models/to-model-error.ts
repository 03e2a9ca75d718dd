import { ParleyError } from '@parley/core';
import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  TypeValidationError,
} from '@ai-sdk/provider';

function isMalformed(error: unknown): boolean {
  return (
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    InvalidResponseDataError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error)
  );
}

function safeMessageOf(error: unknown): string {
  if (APICallError.isInstance(error)) {
    // Only the status is repeated: the upstream body and URL may carry internals or echo credentials.
    if (error.statusCode === undefined) return 'The model service could not be reached';
    // A success status with an error means the answer began and its stream broke off.
    if (error.statusCode < 300) return "The model service's answer stream ended early";
    return `The model service answered with HTTP ${error.statusCode}`;
  }
  if (isMalformed(error)) return 'The model service sent a malformed response';
  // An error object inside the stream, as an OpenAI-compatible server reports a failure mid-answer.
  if (typeof error === 'object' && error !== null && !(error instanceof Error)) {
    return 'The model service reported an error';
  }
  return 'The model call failed';
}

/**
 * Turns whatever a model call failed with into a `MODEL_ERROR` ParleyError whose message is safe to show a
 * client. The original error stays in `cause`, for the log.
 */
export function toModelError(error: unknown): ParleyError {
  if (ParleyError.isInstance(error)) return error;
  return new ParleyError('MODEL_ERROR', safeMessageOf(error), { cause: error });
}
