import { apiKeySetting } from '../settings';

/** Who the page is on the server once a person signed in (or a guest was given an identity). */
export interface SignedInPerson {
  entityId: string;
  name: string | undefined;
  /** A guest identity the server handed out (`AUTH_ANONYMOUS`), not a person signed in at the issuer. */
  guest: boolean;
}

/**
 * The page's credential, in memory: a signed-in person's access token (never in any storage), else a guest's
 * token, else the API key of the settings panel (kept for the tab in sessionStorage).
 */
let bearer: { token: string; person: SignedInPerson } | undefined;

/** What requests and the socket send now. */
export function credential(): string | undefined {
  return bearer?.token ?? apiKeySetting.get();
}

/** The header that carries {@link credential}, for the page's own `fetch` calls. */
export function credentialHeaders(): Record<string, string> {
  const value = credential();
  return value ? { 'x-api-key': value } : {};
}

/** The person signed in (or the guest), if any. */
export function signedInPerson(): SignedInPerson | undefined {
  return bearer?.person;
}

/** Sets (or, with undefined, forgets) the token the page sends in place of the API key. */
export function useBearer(token: string | undefined, person?: SignedInPerson): void {
  bearer = token && person ? { token, person } : undefined;
}

let signInOffered = false;

/** Whether the server offers a Sign in button: a refusal then asks the person to sign in, not for a key. */
export function offersSignIn(): boolean {
  return signInOffered;
}

/** Records whether the server offers a sign-in (auth/account.ts). */
export function setSignInOffered(value: boolean): void {
  signInOffered = value;
}
