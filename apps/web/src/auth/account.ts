import type { SignInConfig, TokenExchangeResponse } from '@parley/core';
import { h } from '../dom';
import { apiKeySetting } from '../settings';
import { setSignInOffered, signedInPerson, type SignedInPerson, useBearer } from './credential';
import {
  beginSignIn,
  completeSignIn,
  forgetSignIn,
  guestIdentity,
  loadSignInConfig,
  refreshSession,
  wasSignedIn,
} from './sign-in';

/** How long before an access token ends the page renews it (with a refresh token). */
const RENEW_AHEAD_MS = 60_000;

/**
 * The header's account area and the page's sign-in: on a server where people sign in with an OIDC issuer it
 * shows "Sign in" or who is signed in with "Sign out"; with guests allowed it gets a guest identity from the
 * server. Where identities are off it shows nothing and the page works with the API key, as before.
 */
export class Account {
  readonly #area: HTMLElement;
  readonly #onChange: () => void;
  #config: SignInConfig | undefined;
  #problem = '';
  #ended = false;
  #renewTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(area: HTMLElement, onChange: () => void) {
    this.#area = area;
    this.#onChange = onChange;
  }

  /** Who the page is, once signed in or given a guest identity. */
  get person(): SignedInPerson | undefined {
    return signedInPerson();
  }

  /**
   * Reads the server's sign-in settings, finishes a sign-in coming back from the issuer, or signs a person of
   * this tab in again after a reload. `'leaving'`: the page is going to the issuer (nothing else should start).
   */
  async start(): Promise<'ready' | 'leaving'> {
    try {
      this.#config = await loadSignInConfig();
    } catch (error) {
      this.#problem = `Sign-in is unavailable: ${messageOf(error)}`;
    }
    const signIn = this.#config?.signIn;
    setSignInOffered(Boolean(signIn));
    try {
      const back = await completeSignIn();
      if (back === 'signed-out') forgetSignIn();
      else if (back) this.#use(back);
      else if (signIn && wasSignedIn() && !this.#signedIn()) {
        await beginSignIn(signIn, true);
        return 'leaving';
      }
    } catch (error) {
      forgetSignIn();
      this.#problem = messageOf(error);
    }
    if (!this.#signedIn() && this.#config?.anonymous && !apiKeySetting.get()) {
      try {
        const guest = await guestIdentity();
        useBearer(guest.token, { entityId: guest.entityId, name: undefined, guest: true });
      } catch (error) {
        this.#problem = `No guest identity: ${messageOf(error)}`;
      }
    }
    this.#render();
    return 'ready';
  }

  #use(session: TokenExchangeResponse) {
    useBearer(session.accessToken, {
      entityId: session.me.entityId,
      name: session.me.name ?? undefined,
      guest: false,
    });
    this.#ended = false;
    clearTimeout(this.#renewTimer);
    if (!session.expiresAt) return;
    const left = Date.parse(session.expiresAt) - Date.now();
    const { refreshToken } = session;
    this.#renewTimer = setTimeout(
      () => {
        if (refreshToken) {
          refreshSession(refreshToken).then(
            (renewed) => this.#use(renewed),
            () => this.#end(),
          );
        } else {
          this.#end();
        }
      },
      Math.max(0, refreshToken ? left - RENEW_AHEAD_MS : left),
    );
  }

  /** The token ended and could not be renewed: the page says so and offers Sign in again. */
  #end() {
    this.#ended = true;
    this.#render();
  }

  /** Whether a person is signed in at the issuer (a guest is not). */
  #signedIn(): boolean {
    return signedInPerson()?.guest === false;
  }

  #render() {
    const person = signedInPerson();
    const signIn = this.#config?.signIn;
    const children: (Node | string)[] = [];
    if (person?.guest) children.push(h('span', { className: 'signed-in' }, 'Guest'));
    if (person && !person.guest && signIn && !this.#ended) {
      children.push(
        h('span', { className: 'signed-in' }, `Signed in as ${person.name ?? 'you'}`),
        this.#button('Sign out', () => {
          forgetSignIn();
          useBearer(undefined);
          clearTimeout(this.#renewTimer);
          this.#render();
          this.#onChange();
        }),
      );
    } else if (signIn) {
      if (this.#ended) children.push(h('span', { className: 'signed-in' }, 'Your sign-in ended'));
      children.push(this.#button('Sign in', () => void beginSignIn(signIn)));
    }
    if (this.#problem)
      children.push(h('span', { className: 'error', role: 'alert' }, this.#problem));
    this.#area.replaceChildren(...children);
    this.#area.hidden = children.length === 0;
  }

  #button(label: string, onClick: () => void): HTMLButtonElement {
    const button = h('button', { type: 'button' }, label);
    button.addEventListener('click', onClick);
    return button;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
