import {
  ParleyError,
  type SignInConfig,
  tokenExchangeRequestSchema,
  type TokenExchangeResponse,
} from '@parley/core';
import { Hono } from 'hono';
import * as oauth from 'oauth4webapi';
import type { AppEnv } from '../http/app-env';
import { success } from '../http/envelope';
import { readJsonBody } from '../http/read-body';
import type { Logger } from '../logger';
import { issuerRequestOptions, type IssuerMetadata } from './oidc-discovery';
import { AuthError, type IdentityResolver } from './resolve-identity';

/** What the chat page reads before it signs anyone in. */
export const SIGN_IN_CONFIG_PATH = '/api/auth/config';
/** Where the chat page trades its code (or refresh token) for an access token. */
export const TOKEN_EXCHANGE_PATH = '/api/auth/token';

const UNREACHABLE = 'The identity provider (AUTH_ISSUER) cannot be reached; try again shortly';

/**
 * The chat page's sign-in with the OIDC issuer: authorization code with PKCE, for a public client
 * (`AUTH_WEB_CLIENT_ID`). The page sends the person to the issuer and back; the server trades the code at the
 * issuer's token endpoint for it (so the issuer needs no CORS rule for the page, and the page's policy stays
 * `connect-src 'self'`), checks the access token as it checks every request, and answers it with who it names.
 * The page keeps the token in memory only (docs/identity.md).
 */
export function signInRoutes(options: {
  resolver: IdentityResolver;
  logger: Logger;
  fetch?: typeof fetch;
}): Hono<AppEnv> {
  const { resolver, logger } = options;
  const settings = resolver.settings;
  const fetchImpl = options.fetch ?? fetch;
  const clientId = settings.AUTH_WEB_CLIENT_ID;
  const metadata = resolver.issuerMetadata;
  const routes = new Hono<AppEnv>();

  const issuer = async (): Promise<IssuerMetadata> => {
    try {
      return await metadata!();
    } catch (error) {
      logger.warn({ err: error }, 'OIDC discovery of AUTH_ISSUER failed');
      throw new ParleyError('UNAVAILABLE', UNREACHABLE);
    }
  };

  routes.get(SIGN_IN_CONFIG_PATH, async (c) => {
    let signIn: SignInConfig['signIn'] = null;
    if (clientId && metadata) {
      const as = await issuer();
      if (!as.authorization_endpoint) {
        throw new ParleyError(
          'UNAVAILABLE',
          'The identity provider names no authorization endpoint',
        );
      }
      signIn = {
        issuer: as.issuer,
        authorizationEndpoint: as.authorization_endpoint,
        clientId,
        scope: settings.AUTH_WEB_SCOPE,
        resource: settings.AUTH_AUDIENCE[0] ?? null,
      };
    }
    const config: SignInConfig = { signIn, anonymous: settings.AUTH_ANONYMOUS };
    return c.json(success(config));
  });

  routes.post(TOKEN_EXCHANGE_PATH, async (c) => {
    if (!clientId || !metadata) {
      throw new ParleyError(
        'NOT_FOUND',
        'Sign-in is not set up here (AUTH_ISSUER and AUTH_WEB_CLIENT_ID)',
      );
    }
    const request = await readJsonBody(c, tokenExchangeRequestSchema, 'token request');
    const as = await issuer();
    const client: oauth.Client = { client_id: clientId };
    const requestOptions = issuerRequestOptions(new URL(as.issuer), fetchImpl);
    let tokens: oauth.TokenEndpointResponse;
    try {
      if (request.grantType === 'authorization_code') {
        // The redirect's own parameters, checked as the page checked them: the state it kept, the issuer's
        // `iss` (RFC 9207) where it sends one, and an error the issuer answered instead of a code.
        const callback = oauth.validateAuthResponse(
          as,
          client,
          new URLSearchParams(request.callback),
          request.state,
        );
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          oauth.None(),
          callback,
          request.redirectUri,
          request.codeVerifier,
          requestOptions,
        );
        tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
      } else {
        const response = await oauth.refreshTokenGrantRequest(
          as,
          client,
          oauth.None(),
          request.refreshToken,
          requestOptions,
        );
        tokens = await oauth.processRefreshTokenResponse(as, client, response);
      }
    } catch (error) {
      throw refusalOf(error, logger);
    }
    let identity;
    try {
      identity = await resolver.resolve(tokens.access_token);
    } catch (error) {
      // The issuer's token is not one this server accepts: its format (opaque, not a JWT) or its audience is
      // set up differently at the issuer than here. The operator's problem, told to both.
      const reason = error instanceof AuthError ? error.message : 'it could not be checked';
      logger.warn(
        { reason },
        'The access token AUTH_ISSUER gave the chat page is not accepted: check that it is a JWT for AUTH_AUDIENCE',
      );
      throw new ParleyError(
        'UNAUTHORIZED',
        `The identity provider's access token is not accepted here (${reason}); the operator must issue JWT access tokens for this server's audience`,
      );
    }
    const answer: TokenExchangeResponse = {
      accessToken: tokens.access_token,
      expiresAt:
        typeof tokens.expires_in === 'number'
          ? new Date(Date.now() + tokens.expires_in * 1000).toISOString()
          : null,
      refreshToken: tokens.refresh_token ?? null,
      me: { entityId: identity.entityId, name: identity.name ?? null, roles: [...identity.roles] },
    };
    c.header('cache-control', 'no-store');
    return c.json(success(answer));
  });
  return routes;
}

/** What the page is told when the issuer refuses or fails: the OAuth error's code, never a token. */
function refusalOf(error: unknown, logger: Logger): ParleyError {
  if (error instanceof oauth.AuthorizationResponseError) {
    return new ParleyError('BAD_REQUEST', `The sign-in was refused: ${error.error}`);
  }
  if (error instanceof oauth.ResponseBodyError) {
    return new ParleyError(
      'BAD_REQUEST',
      `The identity provider refused the sign-in: ${error.error}${error.error_description ? ` (${error.error_description.slice(0, 200)})` : ''}`,
    );
  }
  if (error instanceof oauth.OperationProcessingError) {
    // The callback's parameters do not match the sign-in (a state that differs, another issuer's `iss`).
    if (error.code === oauth.INVALID_RESPONSE || error.code === oauth.JSON_ATTRIBUTE_COMPARISON) {
      logger.warn({ code: error.code, err: error }, 'A sign-in answer was not valid');
    }
    return new ParleyError('BAD_REQUEST', `The sign-in answer is not valid: ${error.message}`);
  }
  logger.warn({ err: error }, 'The token endpoint of AUTH_ISSUER could not be reached');
  return new ParleyError('UNAVAILABLE', UNREACHABLE);
}
