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
  /** A reply was cancelled (`POST /api/messaging/replies/{replyId}/cancel`, or an `ifBusy: "interrupt"` message). */
  CANCELLED: 409,
  /** A channel message with `ifBusy: "reject"` arrived while a reply to the channel was running. */
  CHANNEL_BUSY: 409,
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

/**
 * The Parley error code an error carries (a `ParleyError` thrown by the runtime, a `ParleyClientError` from the
 * messaging interface), or undefined for any other error. Lets a route tell the caller's mistake
 * (`BAD_REQUEST`: answer 400) from a failure of its own.
 *
 * @example
 * if (errorCodeOf(error) === 'BAD_REQUEST') return res.status(400).json({ error: error.message });
 */
export function errorCodeOf(error: unknown): ErrorCode | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return isErrorCode(code) ? code : undefined;
}
