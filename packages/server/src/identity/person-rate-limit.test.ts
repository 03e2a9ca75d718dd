import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedSecretPeople } from '../../test/shared-secret-people';
import { startTestServer, type TestServer } from '../../test/test-server';

/**
 * Budgets per person, attacked from outside: a signed-in person who spreads requests over many addresses (a
 * proxy that forwards whatever address it is told, IPv6 /64s) gets one burst in all, while another person at the
 * very same addresses is served during and after. The operator's token has no person budget.
 */
const SECRET = 'person-rate-limit-test-secret-of-40-chars';
const OPERATOR = 'person-rate-limit-operator-token';
const BURST = 5;
const { tokenFor } = sharedSecretPeople(SECRET);

describe('rate budgets per person, not only per address', () => {
  let test: TestServer;
  /** The rate limit's clock stands still: a budget spent stays spent. */
  const now = 1_000_000;
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    test = await startTestServer({
      authToken: OPERATOR,
      env: { AUTH_JWT_SECRET: SECRET },
      trustProxy: ['loopback'],
      rateLimit: { burst: BURST, perSecond: 0.001, limitLoopback: true, now: () => now },
    });
    for (const person of ['mallory', 'alice']) tokens.set(person, await tokenFor(person));
  }, 60_000);
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  const list = (token: string, from: string) =>
    fetch(`${test.url}/api/messaging/channels`, {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from },
    });

  it('a person rotating addresses gets one burst; another person at those addresses is served during and after', async () => {
    const mallory = tokens.get('mallory')!;
    const alice = tokens.get('alice')!;
    // Twelve requests released together, each from an address of its own (each address's budget is untouched).
    const flood = Promise.all(
      Array.from({ length: 12 }, (_, index) => list(mallory, `2001:db8:${index + 1}::1`)),
    );
    // Alice, at the flood's first address, during it.
    const during = list(alice, '2001:db8:1::1');
    const statuses = (await flood).map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(BURST);
    expect(statuses.filter((status) => status === 429)).toHaveLength(12 - BURST);
    expect((await during).status).toBe(200);

    // After: Mallory is refused at an address never used, with Retry-After; Alice is still served.
    const again = await list(mallory, '2001:db8:ffff::1');
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await again.json()).toMatchObject({
      success: false,
      error: { code: 'RATE_LIMITED' },
    });
    expect((await list(alice, '2001:db8:2::1')).status).toBe(200);
  });

  it("the operator's token has no person budget: only its address's", async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        fetch(`${test.url}/api/messaging/channels`, {
          headers: { 'x-api-key': OPERATOR, 'x-forwarded-for': `2001:db8:a${index}::1` },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
  });
});

describe('an /mcp batch takes the person’s budget per call, not only the address’s', () => {
  let test: TestServer;
  const now = 1_000_000;

  beforeAll(async () => {
    test = await startTestServer({
      authToken: OPERATOR,
      env: { AUTH_JWT_SECRET: SECRET },
      characters: [{ name: 'Bob' }],
      trustProxy: ['loopback'],
      rateLimit: { burst: BURST, perSecond: 0.001, limitLoopback: true, now: () => now },
    });
  }, 60_000);
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  const batch = (token: string, from: string) =>
    fetch(`${test.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'x-forwarded-for': from,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(
        Array.from({ length: BURST * 2 }, (_, index) => ({
          jsonrpc: '2.0',
          id: index + 1,
          method: 'tools/call',
          params: { name: 'Bob', arguments: { message: `call ${index + 1}` } },
        })),
      ),
    });
  /** The calls of a batch's answer that were answered (not refused). */
  const answeredOf = async (response: Response) => {
    const text = await response.text();
    const messages = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => JSON.parse(line.slice('data: '.length)) as { error?: unknown })
      : ([JSON.parse(text)].flat() as { error?: unknown }[]);
    return messages.filter((message) => message.error === undefined).length;
  };

  it('a person’s batch from a fresh address after a spent budget is refused at the door', async () => {
    const mallory = await tokenFor('mallory');
    const first = await batch(mallory, '2001:db8:b1::1');
    expect(first.status).toBe(200);
    expect(await answeredOf(first)).toBe(BURST);
    // A fresh address has its whole burst, but the person has none left.
    const second = await batch(mallory, '2001:db8:b2::1');
    expect(second.status).toBe(429);
    await second.body?.cancel();
    // Another person at that address is served.
    const alice = await batch(await tokenFor('alice'), '2001:db8:b2::1');
    expect(alice.status).toBe(200);
    expect(await answeredOf(alice)).toBeGreaterThan(0);
  });
});
