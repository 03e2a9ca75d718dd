import { ParleyClientError } from '@parley/client';

/** A short, readable line for anything thrown, with the error code when the server gave one. */
export function describeError(error: unknown): string {
  if (ParleyClientError.isInstance(error)) {
    if (error.code === 'UNAUTHORIZED') return 'The server needs an API key: enter it in Settings.';
    return `${error.message} (${error.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}
