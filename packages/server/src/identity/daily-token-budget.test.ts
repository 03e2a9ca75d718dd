import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, postgresUnavailableReason } from '../../test/databases';
import { ScriptedModel } from '../../test/scripted-model';
import { sharedSecretPeople } from '../../test/shared-secret-people';
import { startTestServer, type TestServer } from '../../test/test-server';

/**
 * A daily budget of model tokens per person (`AUTH_DAILY_TOKENS`), attacked from outside: a person whose day is
 * spent gets a clear RATE_LIMITED end to their reply and no model call, also when they release many messages
 * together; another person and the operator are served during and after.
 */
const SECRET = 'daily-token-budget-test-secret-of-40-chars';
const OPERATOR = 'daily-token-budget-operator-token';
/** Each model call reports this usage: 1,000 tokens. */
const USAGE = { inputTokens: 900, outputTokens: 100 };
const BUDGET = 2_500;
const { idOf, tokenFor } = sharedSecretPeople(SECRET);

describe('a daily budget of model tokens per person', () => {
  const model = new ScriptedModel();
  let test: TestServer;

  beforeAll(async () => {
    model.behaviour = { usage: USAGE };
    test = await startTestServer({
      model,
      authToken: OPERATOR,
      env: { AUTH_JWT_SECRET: SECRET, AUTH_DAILY_TOKENS: String(BUDGET) },
      rateLimit: false,
      syncTimeoutMs: 60_000,
    });
  }, 60_000);
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  const ask = (headers: Record<string, string>, entityId: string, channelId = randomUUID()) =>
    fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ text: 'hello', mode: 'sync', entityId }),
    });
  const as = async (person: string) => ({ authorization: `Bearer ${await tokenFor(person)}` });

  it('ends a spent person’s reply with RATE_LIMITED, without a model call; others are served', async () => {
    const mallory = await as('mallory');
    const alice = await as('alice');
    // 0, 1,000 and 2,000 spent before each: under the budget, answered.
    for (let turn = 0; turn < 3; turn += 1) {
      expect((await ask(mallory, idOf('mallory'))).status).toBe(200);
    }
    const calls = model.requests.length;
    const spent = await ask(mallory, idOf('mallory'));
    expect(spent.status).toBe(429);
    expect(await spent.json()).toMatchObject({
      success: false,
      error: {
        code: 'RATE_LIMITED',
        message: `Your daily budget of ${BUDGET} model tokens is spent; it renews at 00:00 UTC`,
      },
    });
    expect(model.requests.length).toBe(calls);

    // Six released together, each in a channel of its own: none reaches the model. Alice, during, is answered.
    const flood = Promise.all(Array.from({ length: 6 }, () => ask(mallory, idOf('mallory'))));
    const during = ask(alice, idOf('alice'));
    expect((await flood).map((response) => response.status)).toEqual(Array(6).fill(429));
    expect((await during).status).toBe(200);
    expect(model.requests.length).toBe(calls + 1);

    // The operator has no person budget; Alice still has hers.
    const operator = await Promise.all(
      Array.from({ length: 4 }, () => ask({ 'x-api-key': OPERATOR }, 'operator-bot')),
    );
    expect(operator.map((response) => response.status)).toEqual(Array(4).fill(200));
    expect((await ask(alice, idOf('alice'))).status).toBe(200);
  });
});

describe.skipIf(await postgresUnavailableReason())(
  'the day is counted in the database: two servers on one PostgreSQL share it',
  () => {
    const model = new ScriptedModel();
    let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
    let one: TestServer;
    let two: TestServer;

    beforeAll(async () => {
      model.behaviour = { usage: USAGE };
      database = await createPostgresDatabase();
      const options = {
        model,
        env: { AUTH_JWT_SECRET: SECRET, AUTH_DAILY_TOKENS: String(BUDGET) },
        rateLimit: false as const,
        syncTimeoutMs: 60_000,
      };
      // Two servers, each with its own pool, memory and admission: all they share is the database.
      const shared = { ...database, dispose: async () => {} };
      one = await startTestServer(options, shared);
      two = await startTestServer(options, shared);
    }, 60_000);
    afterAll(async () => {
      await one?.[Symbol.asyncDispose]();
      await two?.[Symbol.asyncDispose]();
      await database?.dispose();
    });

    const ask = (server: TestServer, token: string, entityId: string) =>
      fetch(`${server.url}/api/messaging/channels/${randomUUID()}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ text: 'hello', mode: 'sync', entityId }),
      });

    it('spending on one server spends the day on the other', async () => {
      const mallory = await tokenFor('mallory');
      // 1,000 tokens each, alternating: 2,000 on the first server and 1,000 on the second. Counted per server,
      // neither would have reached the budget of 2,500.
      for (const server of [one, two, one]) {
        expect((await ask(server, mallory, idOf('mallory'))).status).toBe(200);
      }
      const calls = model.requests.length;
      const [first, second] = await Promise.all([
        ask(one, mallory, idOf('mallory')),
        ask(two, mallory, idOf('mallory')),
      ]);
      expect([first.status, second.status]).toEqual([429, 429]);
      expect(model.requests.length).toBe(calls);
      // Another person is served on both meanwhile.
      const alice = await tokenFor('alice');
      expect((await ask(two, alice, idOf('alice'))).status).toBe(200);
      expect((await ask(one, alice, idOf('alice'))).status).toBe(200);
    });
  },
);
