import { type ErrorCode, httpStatusOf } from './codes';

const marker = Symbol.for('parley.error');

/** Options of a {@link ParleyError}. */
export interface ParleyErrorOptions {
  /** Extra, safe-to-show detail (validation issues, limits). Never secrets or internals. */
  details?: unknown;
  /** The underlying cause, for logs only; it is never sent to a client. */
  cause?: unknown;
}

/**
 * The one error base of Parley. `code` comes from {@link ERROR_CODES}; the message is safe to show to a
 * client. Checks use {@link ParleyError.isInstance}, which survives duplicate installs of the package.
 *
 * @example
 * throw new ParleyError('NOT_FOUND', `Unknown agent ${agentId}`);
 */
export class ParleyError extends Error {
  private readonly [marker] = true;
  override readonly name: string = 'ParleyError';
  readonly code: ErrorCode;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, options: ParleyErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }

  /** The HTTP status this error maps to. */
  get status(): number {
    return httpStatusOf(this.code);
  }

  /** Whether `value` is a ParleyError, from this or any other copy of the package. */
  static isInstance(value: unknown): value is ParleyError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
