import { ParleyClientError } from '@parley/client';
import { offersSignIn } from './auth/credential';

/** A short, readable line for anything thrown, with the error code when the server gave one. */
export function describeError(error: unknown): string {
  if (ParleyClientError.isInstance(error)) {
    if (error.code === 'UNAUTHORIZED') {
      return offersSignIn()
        ? 'Sign in to chat here (Sign in, at the top).'
        : 'The server needs an API key: enter it in Settings.';
    }
    return `${error.message} (${error.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}
