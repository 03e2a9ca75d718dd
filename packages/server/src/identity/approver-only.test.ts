import { definePlugin } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weatherAction, type ActionCall } from '../../test/agent-loop-fixture';
import { ScriptedModel } from '../../test/scripted-model';
import { sharedSecretPeople, weatherWhenAsked } from '../../test/shared-secret-people';
import { startTestServer, type TestServer } from '../../test/test-server';

/**
 * An action that says `approvalBy: 'approver'`, attacked over HTTP with two people signed in (HS256 tokens): the
 * person whose message started the reply may not approve its call, in any number of tries released together;
 * someone with the approver role may.
 */
const TEST_SECRET = 'approver-only-test-secret-of-forty-chars!!';
const OPERATOR_TOKEN = 'approver-only-operator-token';
const { idOf, tokenFor } = sharedSecretPeople(TEST_SECRET);

describe('approver-only actions', () => {
  let test: TestServer;
  const model = new ScriptedModel();
  const calls: ActionCall[] = [];
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    const plugin = definePlugin({
      name: 'approver-only-test',
      actions: [weatherAction(calls, { needsApproval: true, approvalBy: 'approver' })],
    });
    model.behaviour = weatherWhenAsked();
    test = await startTestServer({
      model,
      plugins: [plugin],
      approvals: { timeoutMs: 60_000, sweepMs: 100 },
      rateLimit: false,
      authToken: OPERATOR_TOKEN,
      env: { AUTH_JWT_SECRET: TEST_SECRET },
    });
    tokens.set('alice', await tokenFor('alice', ['user']));
    tokens.set('vera', await tokenFor('vera', ['user', 'approver']));
  }, 60_000);
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  const as = (person: string, method: string, path: string, body?: unknown) =>
    fetch(`${test.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens.get(person)!}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('refuses the person who started the reply and lets an approver decide', async () => {
    const created = await as('alice', 'POST', '/api/messaging/channels', { name: 'ops' });
    expect(created.status).toBe(201);
    const channel = ((await created.json()) as { data: { id: string } }).data.id;
    // Vera, an approver, is in the channel so she can read it.
    expect(
      (
        await as('alice', 'POST', `/api/messaging/channels/${channel}/participants`, {
          participantId: idOf('vera'),
        })
      ).status,
    ).toBeLessThan(300);
    const paused = await as('alice', 'POST', `/api/messaging/channels/${channel}/messages`, {
      text: 'weather?',
      mode: 'sync',
    });
    expect(paused.status).toBe(202);
    const { replyId } = (await paused.json()) as { replyId: string };
    const decision = { toolCallId: 'call_1', approved: true };

    // Alice started the reply, but the action is for approvers: refused, however many tries at once.
    const refused = await Promise.all(
      Array.from({ length: 10 }, () =>
        as('alice', 'POST', `/api/messaging/replies/${replyId}/approvals`, decision),
      ),
    );
    expect(refused.map((r) => r.status)).toEqual(Array(10).fill(403));
    const body = (await refused[0]!.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/role approver/);
    expect(calls).toHaveLength(0);

    // The approver may.
    expect(
      (await as('vera', 'POST', `/api/messaging/replies/${replyId}/approvals`, decision)).status,
    ).toBe(202);
  }, 60_000);
});
