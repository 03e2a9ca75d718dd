import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';
import { entityIdOf } from './identity';
import {
  signInAtIssuer,
  startTestIssuer,
  TEST_RESOURCE,
  type TestIssuer,
  testKey,
} from './testing/oidc-issuer';

/**
 * The chat page's sign-in (authorization code with PKCE) against a real OIDC issuer (`oidc-provider`), through
 * HTTP as the page and an attacker call it: the server trades a code once, for the person who signed in, and
 * refuses every other way back (another state, another verifier, the code again, an error) with a 4xx that
 * gives no token.
 */
const CLIENT_ID = 'parley-chat';
const REDIRECT = 'http://127.0.0.1:3999/';

let issuer: TestIssuer;
let server: TestServer;

beforeAll(async () => {
  issuer = await startTestIssuer({
    people: { alice: { name: 'Alice' }, bob: { name: 'Bob' } },
    keys: [await testKey('sign-in-key', 'ES256')],
  });
  issuer.registerWebClient(CLIENT_ID, [REDIRECT]);
  server = await startTestServer({
    env: {
      AUTH_ISSUER: issuer.issuer,
      AUTH_AUDIENCE: TEST_RESOURCE,
      AUTH_WEB_CLIENT_ID: CLIENT_ID,
      AUTH_WEB_SCOPE: 'openid profile offline_access chat',
    },
  });
}, 120_000);

afterAll(async () => {
  await server?.[Symbol.asyncDispose]();
  await issuer?.close();
});

interface Envelope<T> {
  success: boolean;
  data?: T;
  error?: { code: string; message: string };
}
interface Config {
  signIn: {
    issuer: string;
    authorizationEndpoint: string;
    clientId: string;
    scope: string;
    resource: string | null;
  } | null;
  anonymous: boolean;
}
interface Tokens {
  accessToken: string;
  expiresAt: string | null;
  refreshToken: string | null;
  me: { entityId: string; name: string | null; roles: string[] };
}

async function json<T>(response: Response): Promise<Envelope<T>> {
  return (await response.json()) as Envelope<T>;
}

const exchange = (body: unknown, base = server.url) =>
  fetch(`${base}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** What the page does: asks the issuer for a code as `login`, and keeps the state and the verifier. */
async function comeBackAs(login: string, base = server.url) {
  const config = (await json<Config>(await fetch(`${base}/api/auth/config`))).data!.signIn!;
  const codeVerifier = generateRandomCodeVerifier();
  const state = `state-${login}-${Math.random()}`;
  const url = new URL(config.authorizationEndpoint);
  url.search = new URLSearchParams({
    client_id: config.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: config.scope,
    state,
    code_challenge: await calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...(config.resource ? { resource: config.resource } : {}),
  }).toString();
  const back = await signInAtIssuer(url.href, login);
  return {
    state,
    codeVerifier,
    callback: back.search,
    request: {
      grantType: 'authorization_code',
      callback: back.search,
      state,
      codeVerifier,
      redirectUri: REDIRECT,
    },
  };
}

describe('the chat page’s sign-in through the server', () => {
  it('tells anyone, without a credential, where to sign in', async () => {
    const response = await fetch(`${server.url}/api/auth/config`);
    expect(response.status).toBe(200);
    const { data } = await json<Config>(response);
    expect(data).toEqual({
      signIn: {
        issuer: issuer.issuer,
        authorizationEndpoint: `${issuer.issuer}/auth`,
        clientId: CLIENT_ID,
        scope: 'openid profile offline_access chat',
        resource: TEST_RESOURCE,
      },
      anonymous: false,
    });
  });

  it('trades a code for the person who signed in; the token then works on every door', async () => {
    const { request } = await comeBackAs('alice');
    const response = await exchange(request);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const tokens = (await json<Tokens>(response)).data!;
    expect(tokens.me).toEqual({
      entityId: entityIdOf(issuer.issuer, 'alice'),
      name: 'Alice',
      roles: ['user'],
    });
    expect(Date.parse(tokens.expiresAt!)).toBeGreaterThan(Date.now());
    expect(tokens.refreshToken).toEqual(expect.any(String));
    const me = await fetch(`${server.url}/api/auth/me`, {
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    expect((await json<{ entityId: string }>(me)).data!.entityId).toBe(tokens.me.entityId);
    const socketPath = await fetch(`${server.url}/api/messaging/channels`, {
      headers: { 'x-api-key': tokens.accessToken },
    });
    expect(socketPath.status).toBe(200);
  });

  it('renews with the refresh token, and refuses one it never gave', async () => {
    const first = (await json<Tokens>(await exchange((await comeBackAs('bob')).request))).data!;
    const renewed = await exchange({
      grantType: 'refresh_token',
      refreshToken: first.refreshToken,
    });
    expect(renewed.status).toBe(200);
    const tokens = (await json<Tokens>(renewed)).data!;
    expect(tokens.accessToken).not.toBe(first.accessToken);
    expect(tokens.me.entityId).toBe(entityIdOf(issuer.issuer, 'bob'));

    const forged = await exchange({
      grantType: 'refresh_token',
      refreshToken: 'not-a-refresh-token',
    });
    expect(forged.status).toBe(400);
    const body = await json<Tokens>(forged);
    expect(body.data).toBeUndefined();
    expect(body.error!.message).toMatch(/invalid_grant/);
  });

  it('a code is traded once: twenty exchanges released together give one token', async () => {
    const { request } = await comeBackAs('alice');
    const answers = await Promise.all(Array.from({ length: 20 }, () => exchange(request)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(19);
    const again = await exchange(request);
    expect(again.status).toBe(400);
    expect((await json<Tokens>(again)).error!.message).toMatch(/invalid_grant/);
  });

  it('another state, another verifier or another redirect is refused, and the real way back still works', async () => {
    const { request } = await comeBackAs('alice');
    const stateless = await exchange({ ...request, state: 'a-state-the-page-never-sent' });
    expect(stateless.status).toBe(400);
    expect((await json<Tokens>(stateless)).error!.message).toMatch(/state/);
    // The verifier is checked by the issuer (PKCE): an attacker with the code alone gets nothing.
    const stolen = await exchange({ ...request, codeVerifier: generateRandomCodeVerifier() });
    expect(stolen.status).toBe(400);
    expect((await json<Tokens>(stolen)).error!.message).toMatch(/invalid_grant/);
    const elsewhere = await exchange({ ...request, redirectUri: 'http://127.0.0.1:4000/' });
    expect(elsewhere.status).toBe(400);

    // A wrong verifier spends the code at the issuer (RFC 6749 asks it to); a fresh sign-in works.
    const fresh = await comeBackAs('alice');
    expect((await exchange(fresh.request)).status).toBe(200);
  });

  it('an error the issuer sent back is a 400 naming it', async () => {
    const response = await exchange({
      grantType: 'authorization_code',
      callback: `?error=access_denied&state=s1&iss=${encodeURIComponent(issuer.issuer)}`,
      state: 's1',
      codeVerifier: generateRandomCodeVerifier(),
      redirectUri: REDIRECT,
    });
    expect(response.status).toBe(400);
    expect((await json<Tokens>(response)).error!.message).toBe(
      'The sign-in was refused: access_denied',
    );
  });

  it('a bad body is a 400 naming what is wrong', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /grantType/],
      [{ grantType: 'password', username: 'a', password: 'b' }, /grantType/],
      [{ grantType: 'authorization_code', callback: '?code=x', state: 's' }, /codeVerifier/],
      [
        {
          grantType: 'authorization_code',
          callback: '?code=x',
          state: 's',
          codeVerifier: 'short',
          redirectUri: REDIRECT,
        },
        /PKCE code verifier/,
      ],
      [
        {
          grantType: 'authorization_code',
          callback: '?code=x',
          state: 's',
          codeVerifier: generateRandomCodeVerifier(),
          redirectUri: 'javascript:alert(1)',
        },
        /redirectUri/,
      ],
      [{ grantType: 'refresh_token', refreshToken: 'x', extra: true }, /Unrecognized key/],
    ];
    for (const [body, message] of cases) {
      const response = await exchange(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await json<Tokens>(response)).error!.message).toMatch(message);
    }
    // A body past the server's limit is refused before it is read.
    const huge = await exchange({
      grantType: 'refresh_token',
      refreshToken: 'x'.repeat(2_000_000),
    });
    expect(huge.status).toBe(413);
    const notJson = await fetch(`${server.url}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
  });
});

describe('sign-in that cannot work', () => {
  it('an issuer that gives tokens for another audience: a 401 that says what to fix, no token', async () => {
    await using other = await startTestServer({
      env: {
        AUTH_ISSUER: issuer.issuer,
        AUTH_AUDIENCE: 'https://another.test/api',
        AUTH_WEB_CLIENT_ID: CLIENT_ID,
        AUTH_WEB_SCOPE: 'openid profile chat',
      },
    });
    const { request } = await comeBackAs('alice', other.url);
    const response = await exchange(request, other.url);
    expect(response.status).toBe(401);
    const body = await json<Tokens>(response);
    expect(body.data).toBeUndefined();
    expect(body.error!.message).toMatch(/not accepted here .*aud.*audience/);
  });

  it('an issuer that cannot be reached: 503 on both paths, with nothing internal', async () => {
    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await using down = await startTestServer({
      env: { AUTH_ISSUER: `http://127.0.0.1:${port}`, AUTH_WEB_CLIENT_ID: CLIENT_ID },
    });
    for (const response of [
      await fetch(`${down.url}/api/auth/config`),
      await exchange({ grantType: 'refresh_token', refreshToken: 'x' }, down.url),
    ]) {
      expect(response.status).toBe(503);
      const text = await response.text();
      expect(text).toMatch(/identity provider \(AUTH_ISSUER\) cannot be reached/);
      expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|stack/);
    }
  });

  it('without AUTH_WEB_CLIENT_ID the page is told there is no sign-in, and the token path is a 404', async () => {
    await using plain = await startTestServer({
      env: { AUTH_ISSUER: issuer.issuer, AUTH_AUDIENCE: TEST_RESOURCE },
    });
    const config = await json<Config>(await fetch(`${plain.url}/api/auth/config`));
    expect(config.data).toEqual({ signIn: null, anonymous: false });
    const response = await exchange({ grantType: 'refresh_token', refreshToken: 'x' }, plain.url);
    expect(response.status).toBe(404);
  });
});
