import { randomUUID } from 'node:crypto';
import { SOCKET_MESSAGE_TYPE } from '@parley/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferred, ScriptedModel } from '../../test/scripted-model';
import { sharedSecretPeople } from '../../test/shared-secret-people';
import { connectClient, joinRoom } from '../../test/socket-client';
import { startTestServer, type TestServer } from '../../test/test-server';

/**
 * Replies per person, attacked from outside: a signed-in person who starts replies in many channels at once (each
 * channel far from its own bound) gets at most their budget waiting or running, over HTTP and the socket alike;
 * another person is served during and after, the operator is not bounded by it, and the budget comes back as the
 * replies end.
 */
const SECRET = 'person-concurrency-test-secret-of-40-chars';
const OPERATOR = 'person-concurrency-operator-token';
const PER_PERSON = 3;
const { idOf, tokenFor } = sharedSecretPeople(SECRET);

describe('replies waiting or running, bounded per person', () => {
  const model = new ScriptedModel();
  let test: TestServer;
  let held = deferred();

  beforeAll(async () => {
    model.behaviour = { gate: () => held.promise };
    test = await startTestServer({
      model,
      authToken: OPERATOR,
      env: { AUTH_JWT_SECRET: SECRET },
      rateLimit: false,
      replyLimits: { maxQueuedPerPerson: PER_PERSON },
    });
  }, 60_000);
  afterAll(async () => {
    held.resolve();
    await test?.[Symbol.asyncDispose]();
  });

  const post = (credential: { bearer: string } | { apiKey: string }, entityId?: string) =>
    fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...('bearer' in credential
          ? { authorization: `Bearer ${credential.bearer}` }
          : { 'x-api-key': credential.apiKey }),
      },
      body: JSON.stringify({ text: 'hello', mode: 'websocket', ...(entityId && { entityId }) }),
    });

  it('a person gets their budget in all, over HTTP and the socket; another person and the operator are served', async () => {
    const mallory = { bearer: await tokenFor('mallory') };
    const alice = { bearer: await tokenFor('alice') };
    // Eight new channels at once, each with room for 16 replies: the person's budget decides.
    const flood = Promise.all(Array.from({ length: 8 }, () => post(mallory, idOf('mallory'))));
    const during = post(alice, idOf('alice'));
    const statuses = (await flood).map((response) => response.status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(8 - PER_PERSON);
    expect(statuses.filter((status) => status < 300)).toHaveLength(PER_PERSON);
    expect((await during).status).toBeLessThan(300);
    const refused = await post(mallory, idOf('mallory'));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      success: false,
      error: {
        code: 'RATE_LIMITED',
        message: expect.stringContaining('replies waiting or running'),
      },
    });

    // The socket door counts against the same budget.
    const socket = await connectClient(test.url, 'websocket', { auth: { token: mallory.bearer } });
    try {
      const roomId = randomUUID();
      expect(await joinRoom(socket, roomId, idOf('mallory'))).toEqual({ status: 'ok', roomId });
      const ack = await socket.emitWithAck('message', {
        type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
        payload: {
          roomId,
          senderId: idOf('mallory'),
          senderName: 'Mallory',
          message: 'over the socket',
        },
      });
      expect(ack).toMatchObject({ status: 'error', error: { code: 'RATE_LIMITED' } });
    } finally {
      socket.disconnect();
    }

    // The operator is not a person with a budget.
    const operator = await Promise.all(
      Array.from({ length: PER_PERSON + 2 }, () => post({ apiKey: OPERATOR }, 'operator-bot')),
    );
    expect(operator.map((response) => response.status < 300)).toEqual(
      Array(PER_PERSON + 2).fill(true),
    );

    // The replies end: the budget is back.
    held.resolve();
    await expect
      .poll(async () => (await post(mallory, idOf('mallory'))).status, { timeout: 30_000 })
      .toBeLessThan(300);
    held = deferred();
  });
});
