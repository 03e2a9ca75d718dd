import { strict as assert } from 'node:assert';
import type { PluginTestSuite } from '@parley/plugin-sdk';
import { expectStatus, fetchRoute } from '@parley/plugin-sdk/testing';

function postJson(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

/** The webhook plugin's own tests, run against the live server by `parley test` and `runPluginTests`. */
export const webhookPluginTests: PluginTestSuite[] = [
  {
    name: 'webhook routes',
    tests: [
      {
        name: 'POST /webhook accepts an event with data',
        async fn(runtime) {
          const response = await fetchRoute(
            runtime,
            '/webhook',
            postJson({ event: 'plugin-test', data: { ok: true } }),
          );
          const body = (await expectStatus(response, 200)) as { success: boolean; message: string };
          assert.equal(body.success, true);
          assert.equal(typeof body.message, 'string');
        },
      },
      {
        name: 'POST /webhook refuses a body without an event',
        async fn(runtime) {
          const response = await fetchRoute(runtime, '/webhook', postJson({ data: {} }));
          const body = (await expectStatus(response, 400)) as { success: boolean };
          assert.equal(body.success, false);
        },
      },
      {
        name: 'POST /secure/webhook refuses a request without x-api-key',
        async fn(runtime) {
          const response = await fetchRoute(runtime, '/secure/webhook', {
            ...postJson({ any: 'thing' }),
            serverAuth: false,
          });
          await expectStatus(response, 401);
        },
      },
      {
        name: 'POST /secure/webhook accepts WEBHOOK_API_KEY and only it',
        async fn(runtime) {
          const key = runtime.getSetting('WEBHOOK_API_KEY');
          const wrong = await fetchRoute(
            runtime,
            '/secure/webhook',
            postJson({}, { 'x-api-key': `${key ?? ''}-wrong` }),
          );
          await expectStatus(wrong, 401);
          if (key === undefined) return; // Unconfigured: closed to every key, as checked just above.
          const right = await fetchRoute(
            runtime,
            '/secure/webhook',
            postJson({}, { 'x-api-key': key }),
          );
          const body = (await expectStatus(right, 200)) as { success: boolean };
          assert.equal(body.success, true);
        },
      },
    ],
  },
];
