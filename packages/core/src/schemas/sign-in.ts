import { z } from 'zod';

/**
 * `GET /api/auth/config`: what a browser needs to sign a person in. `signIn` is the OIDC issuer's authorization
 * code + PKCE sign-in for the chat page (`AUTH_ISSUER` with `AUTH_WEB_CLIENT_ID`), null when none is set up;
 * `anonymous` says whether `POST /api/auth/guest` hands out guest identities.
 */
export const signInConfigSchema = z.object({
  signIn: z
    .object({
      issuer: z.string(),
      authorizationEndpoint: z.string(),
      clientId: z.string(),
      scope: z.string(),
      /** The `resource` (RFC 8707) to ask access tokens for: the first of `AUTH_AUDIENCE`, when set. */
      resource: z.string().nullable(),
    })
    .nullable(),
  anonymous: z.boolean(),
});
export type SignInConfig = z.infer<typeof signInConfigSchema>;

const bounded = (max: number) => z.string().min(1).max(max);

/**
 * `POST /api/auth/token`: the chat page's way back from the issuer (the redirect's query, with the `state` the
 * page kept, its PKCE verifier and the `redirect_uri` it used) or its refresh token, exchanged at the issuer's
 * token endpoint by the server for the page.
 */
export const tokenExchangeRequestSchema = z.discriminatedUnion('grantType', [
  z.strictObject({
    grantType: z.literal('authorization_code'),
    /** The query of the redirect back from the issuer (`?code=…&state=…&iss=…`, or its `error`). */
    callback: bounded(8192),
    state: bounded(512),
    /** RFC 7636: 43 to 128 characters of [A-Za-z0-9-._~]. */
    codeVerifier: z.string().regex(/^[A-Za-z0-9\-._~]{43,128}$/, 'must be a PKCE code verifier'),
    redirectUri: z.url({ protocol: /^https?$/ }).max(2048),
  }),
  z.strictObject({
    grantType: z.literal('refresh_token'),
    refreshToken: bounded(8192),
  }),
]);
export type TokenExchangeRequest = z.infer<typeof tokenExchangeRequestSchema>;

/** The answer to a token exchange: the access token for this server and who it names. */
export const tokenExchangeResponseSchema = z.object({
  accessToken: z.string(),
  /** When the access token ends (ISO 8601), when the issuer said. */
  expiresAt: z.string().nullable(),
  refreshToken: z.string().nullable(),
  me: z.object({
    entityId: z.string(),
    name: z.string().nullable(),
    roles: z.array(z.string()),
  }),
});
export type TokenExchangeResponse = z.infer<typeof tokenExchangeResponseSchema>;
