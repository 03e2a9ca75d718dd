import { randomUUID } from 'node:crypto';
import { SignJWT, base64url } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';
import { entityIdOf } from './identity';
import {
  startTestIssuer,
  TEST_RESOURCE,
  type TestIssuer,
  type TestKey,
  testKey,
} from './testing/oidc-issuer';

/**
 * Identities from a real OIDC issuer (`oidc-provider` on a free port), attacked from outside through HTTP:
 * every bad token is a 401 with a Bearer challenge and no data, a user cannot reach admin doors, the operator
 * token stays admin, and a rotated key is followed.
 */
const OPERATOR_TOKEN = 'operator-token-for-identity-tests';

let issuer: TestIssuer;
let server: TestServer;
let keyOne: TestKey;
let stranger: TestKey;

beforeAll(async () => {
  keyOne = await testKey('key-one');
  stranger = await testKey('key-stranger');
  issuer = await startTestIssuer({
    people: { alice: { name: 'Alice' }, bob: {}, root: { roles: ['platform-admin'] } },
    keys: [keyOne],
  });
  server = await startTestServer({
    authToken: OPERATOR_TOKEN,
    env: {
      AUTH_ISSUER: issuer.issuer,
      AUTH_AUDIENCE: TEST_RESOURCE,
      AUTH_ADMIN_ROLES: 'platform-admin',
      AUTH_CLOCK_SKEW_SECONDS: '5',
      AUTH_JWKS_COOLDOWN_MS: '1000',
    },
  });
}, 120_000);

afterAll(async () => {
  await server?.[Symbol.asyncDispose]();
  await issuer?.close();
});

const get = (path: string, token?: string) =>
  fetch(`${server.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const send = (method: string, path: string, body: unknown, token: string) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** A token signed by `key` with the issuer's usual claims, `claims` overriding them. */
function forged(
  key: TestKey,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: issuer.issuer,
    aud: TEST_RESOURCE,
    sub: 'alice',
    iat: now,
    exp: now + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header })
    .sign(key.privateKey);
}

async function expectRefused(response: Response, reason: RegExp) {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="parley"/);
  const body = (await response.json()) as {
    success: boolean;
    data?: unknown;
    error: { message: string };
  };
  expect(body.success).toBe(false);
  expect(body.data).toBeUndefined();
  expect(body.error.message).toMatch(reason);
}

describe('identities from an OIDC issuer', () => {
  it("makes the token's subject the person: a stable entity id from issuer and sub, the name from a claim", async () => {
    const token = await issuer.token('alice');
    const me = (await (await get('/api/auth/me', token)).json()) as {
      data: Record<string, unknown>;
    };
    expect(me.data).toMatchObject({
      kind: 'user',
      entityId: entityIdOf(issuer.issuer, 'alice'),
      name: 'Alice',
      roles: ['user'],
    });
    const again = (await (
      await get('/api/auth/me', await issuer.token('alice'))
    ).json()) as typeof me;
    expect(again.data.entityId).toBe(me.data.entityId);
  });

  it('refuses a request with no credential with a Bearer challenge', async () => {
    await expectRefused(
      await get('/api/messaging/channels'),
      /access token .* or the x-api-key header is required/,
    );
  });

  it('refuses expired, not-yet-valid, wrong-audience and wrong-issuer tokens signed with the real key', async () => {
    const now = Math.floor(Date.now() / 1000);
    const [expired, early, audience, foreign] = await Promise.all([
      forged(keyOne, { iat: now - 600, exp: now - 60 }),
      forged(keyOne, { nbf: now + 600 }),
      forged(keyOne, { aud: 'https://someone-else.test' }),
      forged(keyOne, { iss: 'https://evil.test' }),
    ]);
    const responses = await Promise.all(
      [expired, early, audience, foreign].map((token) => get('/api/messaging/channels', token)),
    );
    await expectRefused(responses[0]!, /expired/);
    await expectRefused(responses[1]!, /nbf/);
    await expectRefused(responses[2]!, /aud/);
    await expectRefused(responses[3]!, /iss/);
  });

  it('takes a token it verified before only until the token ends, whatever it remembers of it', async () => {
    const now = Math.floor(Date.now() / 1000);
    const shortLived = await forged(keyOne, { exp: now + 2 });
    const first = await Promise.all(
      Array.from({ length: 10 }, () => get('/api/auth/me', shortLived)),
    );
    expect(first.map((response) => response.status)).toEqual(Array(10).fill(200));
    // Refused once `exp` and the 5 s of clock skew have passed, not a minute later: no timer, a poll.
    await expect
      .poll(async () => (await get('/api/auth/me', shortLived)).status, {
        timeout: 30_000,
        interval: 250,
      })
      .toBe(401);
    await expectRefused(await get('/api/auth/me', shortLived), /expired/);
  }, 60_000);

  it("refuses alg none, a key the JWKS does not hold, a tampered payload and the operator's token as a JWT secret", async () => {
    const real = await issuer.token('alice');
    const [header, , signature] = real.split('.');
    const payload = base64url.encode(
      JSON.stringify({
        iss: issuer.issuer,
        aud: TEST_RESOURCE,
        sub: 'root',
        exp: 9_999_999_999,
        roles: ['platform-admin'],
      }),
    );
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${payload}.`;
    const tampered = `${header}.${payload}.${signature}`;
    const unknownKey = await forged(stranger, { roles: ['platform-admin'] });
    const hs = await new SignJWT({
      iss: issuer.issuer,
      aud: TEST_RESOURCE,
      sub: 'root',
      roles: ['platform-admin'],
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(OPERATOR_TOKEN));
    const responses = await Promise.all(
      [none, tampered, unknownKey, hs].map((token) => get('/api/webhooks', token)),
    );
    await expectRefused(responses[0]!, /algorithm|invalid/i);
    await expectRefused(responses[1]!, /signature/);
    await expectRefused(responses[2]!, /key the issuer does not hold/);
    await expectRefused(responses[3]!, /algorithm/);
  });

  // Another person's memories (`/api/agents/{id}/memories`) are refused in own-memories.test.ts: a person may
  // read their own there.
  it('keeps agent management, webhooks, the audit and every person’s memories from a user (403), released together', async () => {
    const token = await issuer.token('bob');
    const agentId = randomUUID();
    const responses = await Promise.all([
      send('POST', '/api/agents', { character: { name: 'Mallory' } }, token),
      send('PATCH', `/api/agents/${agentId}`, { name: 'x' }, token),
      send('DELETE', `/api/agents/${agentId}`, {}, token),
      send('POST', `/api/agents/${agentId}/stop`, {}, token),
      get('/api/webhooks', token),
      send(
        'POST',
        '/api/webhooks',
        { url: 'https://example.com/hook', events: ['message.created'] },
        token,
      ),
      get('/api/audit', token),
      get(`/api/memory/${agentId}/memories`, token),
    ]);
    for (const response of responses) {
      expect(response.status).toBe(403);
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code).toBe('FORBIDDEN');
    }
    // Reading the agent list stays open to people: they pick whom to talk to.
    expect((await get('/api/agents', token)).status).toBe(200);
  });

  it('lets the operator token and an admin role through the admin doors', async () => {
    const [operator, admin] = await Promise.all([
      fetch(`${server.url}/api/webhooks`, { headers: { 'x-api-key': OPERATOR_TOKEN } }),
      get('/api/webhooks', await issuer.token('root')),
    ]);
    expect(operator.status).toBe(200);
    expect(admin.status).toBe(200);
    const me = (await (
      await fetch(`${server.url}/api/auth/me`, { headers: { 'x-api-key': OPERATOR_TOKEN } })
    ).json()) as {
      data: { kind: string };
    };
    expect(me.data.kind).toBe('admin');
  });

  it("refuses a message posted under another person's entity id (403) and stores nothing", async () => {
    const alice = await issuer.token('alice');
    const channelId = randomUUID();
    const bobId = entityIdOf(issuer.issuer, 'bob');
    const forgedPost = await send(
      'POST',
      `/api/messaging/channels/${channelId}/messages`,
      { text: 'I am Bob', entityId: bobId, mode: 'sync' },
      alice,
    );
    expect(forgedPost.status).toBe(403);
    const submit = await send(
      'POST',
      '/api/messaging/submit',
      { channel_id: channelId, author_id: bobId, content: 'I am Bob too' },
      alice,
    );
    expect(submit.status).toBe(403);
    const history = await fetch(`${server.url}/api/messaging/channels/${channelId}/messages`, {
      headers: { 'x-api-key': OPERATOR_TOKEN },
    });
    const listed = (await history.json()) as { data?: { messages?: unknown[] } };
    expect(listed.data?.messages ?? []).toHaveLength(0);
  });

  it('answers /mcp without a token with a challenge naming its protected-resource metadata, which names the issuer', async () => {
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${server.url}/.well-known/oauth-protected-resource/mcp`);
    const metadata = (await (await fetch(metadataUrl!)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      resource: `${server.url}/mcp`,
      authorization_servers: [issuer.issuer],
    });
  });

  // Last: it changes the issuer's keys for good.
  it('follows a key rotation: the new kid is fetched and accepted, the removed one refused', async () => {
    const before = await issuer.token('alice');
    expect((await get('/api/auth/me', before)).status).toBe(200);
    issuer.rotate([await testKey('key-two')]);
    const after = await issuer.token('alice');
    // The JWKS is refetched for an unknown kid at most once per cooldown (1 s here): wait for it, not a timer.
    await expect
      .poll(async () => (await get('/api/auth/me', after)).status, {
        timeout: 30_000,
        interval: 250,
      })
      .toBe(200);
    await expectRefused(await get('/api/auth/me', before), /key the issuer does not hold/);
  }, 60_000);
});

describe('guests (AUTH_ANONYMOUS)', () => {
  it('issues a signed guest identity and refuses a tampered or self-made one', async () => {
    await using guests = await startTestServer({ env: { AUTH_ANONYMOUS: 'true' } });
    const issued = await fetch(`${guests.url}/api/auth/guest`, { method: 'POST' });
    expect(issued.status).toBe(201);
    const { data } = (await issued.json()) as { data: { token: string; entityId: string } };
    const me = (await (
      await fetch(`${guests.url}/api/auth/me`, {
        headers: { authorization: `Bearer ${data.token}` },
      })
    ).json()) as { data: { kind: string; entityId: string } };
    expect(me.data).toMatchObject({ kind: 'guest', entityId: data.entityId });

    const [header, payload, signature] = data.token.split('.');
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload!))) as Record<
      string,
      unknown
    >;
    const otherSub = base64url.encode(JSON.stringify({ ...claims, sub: randomUUID() }));
    const selfMade = await new SignJWT({ sub: randomUUID() })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('urn:parley:guest')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('guess-the-server-secret-guess-the-server-secret'));
    for (const token of [`${header}.${otherSub}.${signature}`, selfMade]) {
      const response = await fetch(`${guests.url}/api/auth/me`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(401);
    }
    expect(
      (
        await fetch(`${guests.url}/api/webhooks`, {
          headers: { authorization: `Bearer ${data.token}` },
        })
      ).status,
    ).toBe(403);
  });
});
