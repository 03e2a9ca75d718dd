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
 */
export interface TestIssuer {
  issuer: string;
  /** An access token for `person` (a client of the issuer), signed with the issuer's first key. */
  token(person: string): Promise<string>;
  rotate(keys: readonly TestKey[]): void;
  close(): Promise<void>;
}

export async function startTestIssuer(options: {
  people: Record<string, { roles?: string[]; name?: string }>;
  keys: readonly TestKey[];
}): Promise<TestIssuer> {
  let current: Provider | undefined;
  const server: Server = createServer((req, res) => {
    void current!.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const build = (keys: readonly TestKey[]) =>
    new Provider(issuer, {
      clients: Object.keys(options.people).map((person) => ({
        client_id: person,
        client_secret: `${person}-secret-for-tests`,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      })),
      jwks: { keys: keys.map((key) => key.jwk) as never },
      ttl: { ClientCredentials: 300 },
      features: {
        devInteractions: { enabled: false },
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
        const person = options.people[(token as { clientId: string }).clientId];
        return { roles: person?.roles ?? [], name: person?.name };
      },
    });
  current = build(options.keys);
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
    rotate(keys) {
      current = build(keys);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
