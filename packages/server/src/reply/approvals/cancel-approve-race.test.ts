import { randomUUID } from 'node:crypto';
import { definePlugin } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFromResults, weatherAction } from '../../../test/agent-loop-fixture';
import { databaseKinds } from '../../../test/databases';
import { ScriptedModel } from '../../../test/scripted-model';
import { parseSse } from '../../../test/sse';
import { startTestServer, type TestServer } from '../../../test/test-server';

/**
 * Cancels released together with the approvals that continue the same replies. A reply that exists is never
 * answered 404: its cancel is 202 (it was stopped: it ends cancelled) or 409 (too late: it ends with its answer),
 * and each reply ends in exactly the story its cancel told.
 */
describe.each(await databaseKinds())(
  'cancels released together with approvals on $name',
  (kind) => {
    let test: TestServer;

    beforeAll(async () => {
      if (kind.skip) return;
      const model = new ScriptedModel();
      const plugin = definePlugin({
        name: 'cancel-race',
        actions: [weatherAction([], { needsApproval: true })],
      });
      test = await startTestServer(
        { model, plugins: [plugin], approvals: { timeoutMs: 60_000, sweepMs: 100 } },
        await kind.create(),
      );
      model.behaviour = {
        toolCalls: (request) =>
          request.messages.at(-1)?.role === 'user'
            ? [{ toolCallId: 'call_1', toolName: 'GET_WEATHER', input: '{"city":"Paris"}' }]
            : undefined,
        reply: answerFromResults,
        plain: true,
      };
    });
    afterAll(() => test?.[Symbol.asyncDispose]());

    const post = (path: string, body?: unknown) =>
      fetch(`${test.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });

    it.skipIf(kind.skip).each([1, 2, 3])(
      'round %i: every cancel 202 or 409, never 404, and each reply ends as its cancel said',
      async () => {
        const replyIds: string[] = [];
        for (let n = 0; n < 10; n += 1) {
          const asked = await post(`/api/messaging/channels/${randomUUID()}/messages`, {
            entityId: 'user-1',
            text: 'weather?',
            mode: 'sync',
          });
          expect(asked.status).toBe(202);
          replyIds.push(((await asked.json()) as { replyId: string }).replyId);
        }
        const answers = await Promise.all(
          replyIds.flatMap((replyId) => [
            post(`/api/messaging/replies/${replyId}/approvals`, {
              toolCallId: 'call_1',
              approved: true,
            }).then((response) => ({ kind: 'approve', replyId, status: response.status })),
            post(`/api/messaging/replies/${replyId}/cancel`).then((response) => ({
              kind: 'cancel',
              replyId,
              status: response.status,
            })),
          ]),
        );
        for (const replyId of replyIds) {
          const cancel = answers.find(
            (answer) => answer.kind === 'cancel' && answer.replyId === replyId,
          )!;
          const approve = answers.find(
            (answer) => answer.kind === 'approve' && answer.replyId === replyId,
          )!;
          expect([202, 409], `cancel of ${replyId}`).toContain(cancel.status);
          expect([202, 409], `approval of ${replyId}`).toContain(approve.status);
          const events = parseSse(
            await (await fetch(`${test.url}/api/messaging/replies/${replyId}/events`)).text(),
          );
          const ends = events.filter((event) => event.event === 'done' || event.event === 'error');
          expect(ends, `the ends of ${replyId}`).toHaveLength(1);
          if (cancel.status === 202) {
            expect(ends[0]).toMatchObject({ event: 'error', data: { code: 'CANCELLED' } });
          } else {
            expect(ends[0]).toMatchObject({ event: 'done' });
            expect(approve.status).toBe(202);
          }
        }
      },
    );
  },
);
