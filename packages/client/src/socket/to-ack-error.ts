import {
  type ApprovalDecided,
  ERROR_CODES,
  approvalDecidedSchema,
  isErrorCode,
} from '@parley/core';
import { ParleyClientError } from '../client-error';
import { invalidResponseError } from '../rest/invalid-response-error';

/** The error of an `{ status: 'error' }` acknowledgment, with the HTTP status its code maps to. */
export function toAckError(error: { code: string; message: string }): ParleyClientError {
  const status = isErrorCode(error.code) ? ERROR_CODES[error.code] : 500;
  return new ParleyClientError(status, error.code, error.message);
}

/** The error of an acknowledgment that did not arrive in time. */
export function ackTimeoutError(what: string, timeout: number): ParleyClientError {
  return new ParleyClientError(0, 'TIMEOUT', `No acknowledgment for ${what} within ${timeout} ms`);
}

/**
 * The decision an `ok` acknowledgment of `decideApproval` confirms (`{ roomId, replyId, toolCallId, decision }`),
 * in the REST answer's shape; `INVALID_RESPONSE` when it is not one.
 */
export function toApprovalDecided(ack: Record<string, unknown>): ApprovalDecided {
  const decided = approvalDecidedSchema.safeParse({ ...ack, status: ack.decision });
  if (!decided.success) throw invalidResponseError(0, 'decideApproval acknowledgment');
  return decided.data;
}
