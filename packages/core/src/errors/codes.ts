/**
 * Every error code Parley uses, with the HTTP status it maps to. One table, so the server's error handler, the
 * socket acknowledgments and the client agree.
 */
export const ERROR_CODES = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  MODEL_ERROR: 502,
  UNAVAILABLE: 503,
  TIMEOUT: 504,
} as const;

/** A Parley error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status of an error code. */
export function httpStatusOf(code: ErrorCode): (typeof ERROR_CODES)[ErrorCode] {
  return ERROR_CODES[code];
}

/** Whether a string is one of Parley's error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}
