import { z } from 'zod';
import {
  list,
  optionalWholeNumber,
  positiveNumber,
  text,
  textWithDefault,
  urlOf,
  wholeNumber,
  yesNo,
} from '../config/setting-types';

/**
 * The identity settings (docs/identity.md). None set: no people, every request that passes the server token (or
 * every request, without one) is the operator, as before.
 */
export const authSettingsSchema = z.object({
  /** An OIDC issuer: its discovery document names the JWKS; tokens must carry this `iss`. */
  AUTH_ISSUER: urlOf(['http:', 'https:'], 'an http(s) URL'),
  /** The JWKS to verify tokens with, when not discovered from AUTH_ISSUER. */
  AUTH_JWKS_URL: urlOf(['http:', 'https:'], 'an http(s) URL'),
  /** The `aud` tokens must carry (comma-separated: any of them). */
  AUTH_AUDIENCE: list(),
  /** A shared secret for HS256 tokens (simple setups without an identity provider; at least 32 characters). */
  AUTH_JWT_SECRET: text(),
  /** Seconds of clock difference tolerated on `exp` and `nbf`. */
  AUTH_CLOCK_SKEW_SECONDS: wholeNumber(30, 0, 600),
  /** The claim holding a person's roles (a list or a space-separated string; dotted paths allowed). */
  AUTH_ROLES_CLAIM: textWithDefault('roles'),
  /** The claim holding a person's display name. */
  AUTH_NAME_CLAIM: textWithDefault('name'),
  /** The provider's role names that mean Parley's admin and approver roles. */
  AUTH_ADMIN_ROLES: list(),
  AUTH_APPROVER_ROLES: list(),
  /** Anonymous visitors get a signed guest token from `POST /api/auth/guest`. */
  AUTH_ANONYMOUS: yesNo(false),
  /** How long a guest token lasts, in seconds. */
  AUTH_GUEST_TTL_SECONDS: positiveNumber(24 * 3600),
  /** The least time between two fetches of the JWKS (an unknown `kid` refetches at most this often). */
  AUTH_JWKS_COOLDOWN_MS: wholeNumber(30_000, 1_000, 3_600_000),
  /**
   * The chat page's client id at AUTH_ISSUER (a public client: authorization code with PKCE, no secret, its
   * redirect URI the page's address, e.g. https://chat.example.com/). Set: the page offers "Sign in".
   */
  AUTH_WEB_CLIENT_ID: text(),
  /** The scopes the chat page asks the issuer for. */
  AUTH_WEB_SCOPE: textWithDefault('openid profile'),
  /** Each signed-in person's budget of model tokens a day (UTC); unset: none. */
  AUTH_DAILY_TOKENS: optionalWholeNumber(1, 1_000_000_000_000),
});

export type AuthSettings = z.infer<typeof authSettingsSchema>;

/** Whether any identity setting is on: then requests carry identities rather than only the server token. */
export function authConfigured(settings: AuthSettings): boolean {
  return Boolean(
    settings.AUTH_ISSUER ||
    settings.AUTH_JWKS_URL ||
    settings.AUTH_JWT_SECRET ||
    settings.AUTH_ANONYMOUS,
  );
}
