import {
  apiSuccessSchema,
  signInConfigSchema,
  tokenExchangeRequestSchema,
  tokenExchangeResponseSchema,
} from '@parley/core';
import type { DocumentedOperation } from './built-in-operations';

/** The chat page's sign-in (`identity/sign-in-routes.ts`): open, since it is how a visitor gets a credential. */
export const AUTH_OPERATIONS: readonly DocumentedOperation[] = [
  {
    method: 'get',
    path: '/api/auth/config',
    operationId: 'getSignInConfig',
    summary: 'Where people sign in',
    description:
      "Open. `signIn` is the OIDC issuer's authorization code + PKCE sign-in for the chat page (with " +
      '`AUTH_ISSUER` and `AUTH_WEB_CLIENT_ID`: its authorization endpoint, the client id, the scopes and the ' +
      '`resource` to ask tokens for), null without them; `anonymous` whether `POST /api/auth/guest` hands out ' +
      'guest identities. 503 when the issuer cannot be reached.',
    tag: 'auth',
    auth: [],
    responses: {
      200: { description: 'The sign-in settings.', json: apiSuccessSchema(signInConfigSchema) },
    },
    errors: ['PAYLOAD_TOO_LARGE', 'UNAVAILABLE'],
  },
  {
    method: 'post',
    path: '/api/auth/token',
    operationId: 'exchangeSignInToken',
    summary:
      "Trades the chat page's way back from the issuer (or its refresh token) for an access token",
    description:
      'Open. `authorization_code`: the query of the redirect back from the issuer, the `state` the page sent, ' +
      'its PKCE verifier and the `redirect_uri` it used; the server checks the state and the `iss`, trades the ' +
      "code at the issuer's token endpoint as the public client `AUTH_WEB_CLIENT_ID`, and checks the access " +
      'token as every request is checked. `refresh_token`: a new access token. Answers the token, when it ends, ' +
      'the refresh token and who it names (`Cache-Control: no-store`). 400: the issuer refused (its error ' +
      'named), a state or verifier that does not match, a code used before, a bad body; 401: the issuer gave a ' +
      'token this server does not accept (its format or audience); 404: no sign-in is set up; 503: the issuer ' +
      'cannot be reached.',
    tag: 'auth',
    auth: [],
    body: tokenExchangeRequestSchema,
    responses: {
      200: {
        description: 'The access token and the person.',
        json: apiSuccessSchema(tokenExchangeResponseSchema),
      },
    },
    errors: ['BAD_REQUEST', 'UNAUTHORIZED', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'UNAVAILABLE'],
  },
];
