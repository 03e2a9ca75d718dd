import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OidcProvider from 'oidc-provider';

/** The part of `oidc-provider`'s Provider the tests use (the package ships no types). */
interface Provider {
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}
const Provider = OidcProvider as new (issuer: string, configuration: object) => Provider;

/** The resource (audience) the test issuer mints access tokens for. */
export const TEST_RESOURCE = 'https://parley.test/api';

/** A private signing key with its `kid` and algorithm. */
export interface TestKey {
  kid: string;
  alg: 'RS256' | 'ES256' | 'EdDSA';
  jwk: JWK;
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
}

/** A key pair for the issuer (RS256, ES256 or EdDSA). */
export async function testKey(kid: string, alg: TestKey['alg'] = 'RS256'): Promise<TestKey> {
  const { privateKey } = await generateKeyPair(alg, {
    extractable: true,
    crv: alg === 'EdDSA' ? 'Ed25519' : undefined,
  });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' } };
}

/**
 * A real OIDC issuer (`oidc-provider`) on a free port: each client (`client_id` = the person) gets JWT access
 * tokens for {@link TEST_RESOURCE} by client credentials, with a `roles` claim. `rotate(keys)` swaps its signing
 * keys (its JWKS changes at once), as an identity provider's key rotation does.
 *
 * `registerWebClient` adds a public client for a chat page (authorization code with PKCE, refresh tokens with
 * `offline_access`): people sign in at the issuer's own login form (`oidc-provider`'s development interactions:
 * any login, any password; the login is the person) and consent once.
 */
export interface TestIssuer {
  issuer: string;
  /** An access token for `person` (a client of the issuer), signed with the issuer's first key. */
  token(person: string): Promise<string>;
  rotate(keys: readonly TestKey[]): void;
  /** Registers the public client `clientId` with its redirect URIs (the issuer is rebuilt with its keys). */
  registerWebClient(clientId: string, redirectUris: readonly string[]): void;
  close(): Promise<void>;
}

export async function startTestIssuer(options: {
  people: Record<string, { roles?: string[]; name?: string }>;
  keys: readonly TestKey[];
}): Promise<TestIssuer> {
  let current: Provider | undefined;
  let keys = options.keys;
  let webClients: { client_id: string; redirect_uris: string[] }[] = [];
  const server: Server = createServer((req, res) => {
    void current!.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const build = () =>
    new Provider(issuer, {
      clients: [
        ...Object.keys(options.people).map((person) => ({
          client_id: person,
          client_secret: `${person}-secret-for-tests`,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
        })),
        ...webClients.map((client) => ({
          ...client,
          token_endpoint_auth_method: 'none',
          id_token_signed_response_alg: keys[0]!.alg,
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        })),
      ],
      scopes: ['openid', 'profile', 'offline_access', 'chat'],
      claims: { openid: ['sub'], profile: ['name'] },
      // A public client that may refresh gets a refresh token (rotated on use), as identity providers do for
      // single-page applications.
      issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
        client.grantTypeAllowed('refresh_token'),
      findAccount: (_ctx: unknown, id: string) => ({
        accountId: id,
        claims: () => ({ sub: id, name: options.people[id]?.name }),
      }),
      jwks: { keys: keys.map((key) => key.jwk) as never },
      ttl: { ClientCredentials: 300 },
      features: {
        devInteractions: { enabled: webClients.length > 0 },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => TEST_RESOURCE,
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({
            scope: 'chat',
            audience: TEST_RESOURCE,
            accessTokenTTL: 300,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: keys[0]!.alg, kid: keys[0]!.kid } },
          }),
        },
      },
      extraTokenClaims: (_ctx: unknown, token: unknown) => {
        const { accountId, clientId } = token as { accountId?: string; clientId: string };
        const person = options.people[accountId ?? clientId];
        return { roles: person?.roles ?? [], name: person?.name };
      },
    });
  current = build();
  return {
    issuer,
    async token(person) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${person}:${person}-secret-for-tests`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          resource: TEST_RESOURCE,
          scope: 'chat',
        }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!response.ok || !body.access_token)
        throw new Error(`issuer refused: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    rotate(next) {
      keys = next;
      current = build();
    },
    registerWebClient(clientId, redirectUris) {
      webClients = [...webClients, { client_id: clientId, redirect_uris: [...redirectUris] }];
      current = build();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Signs `login` in at the test issuer the way a browser would, without one: follows `authorizationUrl` through
 * the issuer's login and consent forms (cookies kept) and answers the address the issuer sends back to (the
 * redirect URI with `code`, `state` and `iss`, or an `error`).
 */
export async function signInAtIssuer(authorizationUrl: string, login: string): Promise<URL> {
  const cookies = new Map<string, string>();
  const go = async (url: string, form?: Record<string, string>): Promise<Response> => {
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form) : undefined,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return response;
  };
  let url = authorizationUrl;
  for (let hop = 0; hop < 12; hop++) {
    const response = await go(url);
    const next = response.headers.get('location');
    if (!next) throw new Error(`the issuer stopped at ${url} (${response.status})`);
    const target = new URL(next, url);
    if (!target.pathname.startsWith('/interaction/') && !target.pathname.startsWith('/auth')) {
      return target;
    }
    if (target.pathname.startsWith('/interaction/')) {
      const page = await (await go(target.href)).text();
      const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
      const form: Record<string, string> =
        prompt === 'login' ? { prompt, login, password: 'any' } : { prompt: prompt ?? 'consent' };
      const submitted = await go(target.href, form);
      url = new URL(submitted.headers.get('location') ?? target.href, target).href;
    } else {
      url = target.href;
    }
  }
  throw new Error('the issuer sent the sign-in round in circles');
}
