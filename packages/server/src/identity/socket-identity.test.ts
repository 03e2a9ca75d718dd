import { SignJWT } from 'jose';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../../test/socket-client';
import { startTestServer, type TestServer } from '../../test/test-server';
import { entityIdOf } from './identity';

/**
 * The socket handshake attacked from outside, against the real app with auth configured (HS256 shared secret):
 * no token, a forged one, an expired one and one signed with another key are refused at the handshake with a
 * reason; a valid one, and the operator token, connect. (Joining another person's room is attacked in
 * channel-access.test.ts.)
 */
const SECRET = 'socket-identity-test-secret-of-forty-chars';
const OPERATOR_TOKEN = 'socket-identity-operator-token';

const sign = (secret: string, expiresAt: string | number, subject = 'alice') =>
  new SignJWT({ roles: ['user'], name: subject })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(subject)
    .setIssuedAt(typeof expiresAt === 'number' ? expiresAt - 600 : undefined)
    .setExpirationTime(expiresAt)
    .sign(new TextEncoder().encode(secret));

/** Connects with `auth` and resolves with the handshake's refusal message, or 'connected'. */
function handshake(url: string, auth: Record<string, string> | undefined): Promise<string> {
  const socket = io(url, { transports: ['websocket'], reconnection: false, forceNew: true, auth });
  return new Promise<string>((resolve) => {
    socket.once('connect', () => resolve('connected'));
    socket.once('connect_error', (error: Error) => resolve(error.message));
  }).finally(() => socket.disconnect());
}

describe('socket handshake with auth configured', () => {
  let test: TestServer;
  beforeAll(async () => {
    test = await startTestServer({
      authToken: OPERATOR_TOKEN,
      rateLimit: false,
      env: { AUTH_JWT_SECRET: SECRET },
    });
  }, 60_000);
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  it('refuses no token, garbage, an expired token, another key and alg none, each with a reason', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await sign(SECRET, now - 3600);
    const otherKey = await sign('another-secret-that-is-long-enough-0000', '10m');
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ sub: 'alice', exp: now + 600 }),
    ).toString('base64url')}.`;
    // Released together, not one after another.
    const [missing, garbage, old, foreign, unsigned, wrongOperator] = await Promise.all([
      handshake(test.url, undefined),
      handshake(test.url, { token: 'not-a-jwt' }),
      handshake(test.url, { token: expired }),
      handshake(test.url, { token: otherKey }),
      handshake(test.url, { token: none }),
      handshake(test.url, { apiKey: `${OPERATOR_TOKEN}x` }),
    ]);
    for (const refusal of [missing, garbage, old, foreign, unsigned, wrongOperator]) {
      expect(refusal).toMatch(/^Unauthorized: /);
    }
    expect(missing).toMatch(/required/i);
    expect(old).toMatch(/expired/i);
    // The reason never echoes the credential.
    expect(old).not.toContain(expired);
    expect(foreign).not.toContain(otherKey);
  }, 60_000);

  it('accepts a valid token as that person and the operator token as admin', async () => {
    const token = await sign(SECRET, '10m', 'carol');
    const carol = await connectClient(test.url, 'websocket', { auth: { token } });
    const operator = await connectClient(test.url, 'websocket', {
      auth: { apiKey: OPERATOR_TOKEN },
    });
    try {
      const sockets = await test.server.io.fetchSockets();
      const identities = sockets.map(
        (s) => (s.data as { identity?: { kind: string; entityId: string } }).identity,
      );
      expect(identities).toContainEqual(
        expect.objectContaining({
          kind: 'user',
          entityId: entityIdOf('urn:parley:shared-secret', 'carol'),
        }),
      );
      expect(identities).toContainEqual(expect.objectContaining({ kind: 'admin' }));
    } finally {
      carol.disconnect();
      operator.disconnect();
    }
  }, 60_000);
});
