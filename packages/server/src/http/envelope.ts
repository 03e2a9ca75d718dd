import type { ApiErrorBody, ApiSuccess, ErrorCode } from '@parley/core';

/** The success envelope `{ success: true, data }`. */
export function success<T>(data: T): ApiSuccess<T> {
  return { success: true, data };
}

/** The failure envelope `{ success: false, error: { code, message, details? } }`. */
export function failure(code: ErrorCode, message: string, details?: unknown): ApiErrorBody {
  return {
    success: false,
    error: details === undefined ? { code, message } : { code, message, details },
  };
}
