import type { SignInConfig, TokenExchangeRequest, TokenExchangeResponse } from '@parley/core';
import {
  calculatePKCECodeChallenge,
  generateRandomCodeVerifier,
  generateRandomState,
} from 'oauth4webapi';

/** The issuer's sign-in the server offers (`AUTH_ISSUER` with `AUTH_WEB_CLIENT_ID`). */
export type IssuerSignIn = NonNullable<SignInConfig['signIn']>;

/**
 * What the page keeps while the person is at the issuer, for the way back only (sessionStorage, removed on
 * return): the state it sent, its PKCE verifier, and the channel to return to. No token is ever stored.
 */
const PENDING = 'parley.signIn.pending';
/** Set while a person is signed in in this tab: after a reload the page signs them in again without a prompt. */
const ACTIVE = 'parley.signIn.active';

interface Pending {
  state: string;
  codeVerifier: string;
  returnTo: string;
  silent: boolean;
}

/** The server's sign-in settings; undefined where people do not sign in (identities are off: a 404). */
export async function loadSignInConfig(): Promise<SignInConfig | undefined> {
  const response = await fetch(`${location.origin}/api/auth/config`);
  if (response.status === 404) return undefined;
  return dataOf<SignInConfig>(response);
}

/** The page's address, where the issuer sends people back (registered at the issuer as a redirect URI). */
function redirectUri(): string {
  return `${location.origin}${location.pathname}`;
}

/**
 * Sends the person to the issuer to sign in: authorization code with PKCE (S256). `silent` asks the issuer not to
 * show anything (`prompt=none`): a person still signed in there comes straight back, anyone else comes back
 * with an error and sees the Sign in button.
 */
export async function beginSignIn(signIn: IssuerSignIn, silent = false): Promise<void> {
  const codeVerifier = generateRandomCodeVerifier();
  const state = generateRandomState();
  const pending: Pending = { state, codeVerifier, returnTo: location.hash, silent };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(signIn.authorizationEndpoint);
  const query = url.searchParams;
  query.set('client_id', signIn.clientId);
  query.set('redirect_uri', redirectUri());
  query.set('response_type', 'code');
  query.set('scope', signIn.scope);
  query.set('state', state);
  query.set('code_challenge', await calculatePKCECodeChallenge(codeVerifier));
  query.set('code_challenge_method', 'S256');
  // RFC 8707: the access token is for this server's audience (a JWT the server can check).
  if (signIn.resource) query.set('resource', signIn.resource);
  if (silent) query.set('prompt', 'none');
  location.assign(url);
}

/**
 * On the way back from the issuer: the server trades the code for an access token. `'signed-out'` when a silent
 * attempt found nobody signed in at the issuer; undefined when this page load is not a way back. The address
 * loses the callback's parameters either way (a reload must not offer the code again).
 */
export async function completeSignIn(): Promise<TokenExchangeResponse | 'signed-out' | undefined> {
  const params = new URLSearchParams(location.search);
  if (!params.has('state') || !(params.has('code') || params.has('error'))) return undefined;
  const pending = readPending();
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', `${location.pathname}${pending?.returnTo ?? ''}`);
  if (!pending) throw new Error('This sign-in was not started in this tab: sign in again.');
  const error = params.get('error');
  if (error) {
    if (pending.silent) return 'signed-out';
    throw new Error(`The sign-in was refused (${error.slice(0, 100)}).`);
  }
  const session = await exchange({
    grantType: 'authorization_code',
    callback: params.toString(),
    state: pending.state,
    codeVerifier: pending.codeVerifier,
    redirectUri: redirectUri(),
  });
  sessionStorage.setItem(ACTIVE, '1');
  return session;
}

/** A new access token for the refresh token the issuer gave. */
export function refreshSession(refreshToken: string): Promise<TokenExchangeResponse> {
  return exchange({ grantType: 'refresh_token', refreshToken });
}

/** Whether a person signed in in this tab before its reload (then the page signs them in again silently). */
export function wasSignedIn(): boolean {
  return sessionStorage.getItem(ACTIVE) === '1';
}

/** Forgets the tab's sign-in (the token itself is only in memory). */
export function forgetSignIn(): void {
  sessionStorage.removeItem(ACTIVE);
}

/** Where a guest's token is kept for the tab (a reload keeps the guest's conversation; see docs/identity.md). */
const GUEST = 'parley.guest';

/**
 * A guest's identity from the server (`AUTH_ANONYMOUS`): the tab's own while its token lasts, else a new one.
 */
export async function guestIdentity(): Promise<{ token: string; entityId: string }> {
  try {
    const kept = JSON.parse(sessionStorage.getItem(GUEST) ?? 'null') as {
      token?: unknown;
      entityId?: unknown;
      expiresAt?: unknown;
    } | null;
    if (
      typeof kept?.token === 'string' &&
      typeof kept.entityId === 'string' &&
      typeof kept.expiresAt === 'string' &&
      Date.parse(kept.expiresAt) > Date.now() + 60_000
    ) {
      return { token: kept.token, entityId: kept.entityId };
    }
  } catch {
    // A broken entry: a new guest.
  }
  const response = await fetch(`${location.origin}/api/auth/guest`, { method: 'POST' });
  const guest = await dataOf<{ token: string; entityId: string; expiresAt: string }>(response);
  sessionStorage.setItem(GUEST, JSON.stringify(guest));
  return guest;
}

async function exchange(request: TokenExchangeRequest): Promise<TokenExchangeResponse> {
  const response = await fetch(`${location.origin}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  return dataOf<TokenExchangeResponse>(response);
}

async function dataOf<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as {
    data?: T;
    error?: { message?: string };
  };
  if (!response.ok || body.data === undefined) {
    throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  }
  return body.data;
}

function readPending(): Pending | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as Partial<Pending> | null;
    return typeof value?.state === 'string' && typeof value.codeVerifier === 'string'
      ? {
          state: value.state,
          codeVerifier: value.codeVerifier,
          returnTo: typeof value.returnTo === 'string' ? value.returnTo : '',
          silent: value.silent === true,
        }
      : undefined;
  } catch {
    return undefined;
  }
}
