const marker = Symbol.for('parley.client-error');

/** Statuses after which the same request may succeed when tried again. */
const RETRYABLE_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * The one error a Parley client call throws: an HTTP error status, a timeout, a network failure, or a response
 * that does not match its schema.
 */
export class ParleyClientError extends Error {
  private readonly [marker] = true;
  override readonly name = 'ParleyClientError';
  /** HTTP status, or 0 when no response arrived. */
  readonly status: number;
  /** Server error code (`NOT_FOUND`, …) or a client one (`TIMEOUT`, `NETWORK_ERROR`, `INVALID_RESPONSE`). */
  readonly code: string;
  /** Server-provided details, when any. */
  readonly details: unknown;
  /** Whether trying the same call again may succeed. */
  readonly retryable: boolean;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: unknown; cause?: unknown; retryable?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? (status === 0 || RETRYABLE_STATUSES.has(status));
  }

  /** Whether `value` is a ParleyClientError from any copy of the package. */
  static isInstance(value: unknown): value is ParleyClientError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
