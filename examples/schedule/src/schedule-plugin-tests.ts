import { strict as assert } from 'node:assert';
import type { AgentRuntime, PluginTestSuite } from '@parley/plugin-sdk';
import { expectStatus, fetchRoute } from '@parley/plugin-sdk/testing';

/** A channel of the test run's own, so that a test never posts into a real channel. */
const TEST_CHANNEL = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';

function schedule(runtime: AgentRuntime, body: unknown) {
  return fetchRoute(runtime, '/schedule', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The schedule plugin's own tests, run against the live server. */
export const schedulePluginTests: PluginTestSuite[] = [
  {
    name: 'schedule route',
    tests: [
      {
        name: 'POST /schedule accepts a message for the future',
        async fn(runtime) {
          const sendAt = new Date(Date.now() + 60 * 60 * 1000).toISOString();
          const response = await schedule(runtime, {
            channelId: TEST_CHANNEL,
            message: 'plugin self-test',
            sendAt,
          });
          const body = (await expectStatus(response, 200)) as { success: boolean; message: string };
          assert.equal(body.success, true);
          assert.equal(typeof body.message, 'string');
        },
      },
      {
        name: 'POST /schedule refuses a sendAt in the past',
        async fn(runtime) {
          const response = await schedule(runtime, {
            channelId: TEST_CHANNEL,
            message: 'too late',
            sendAt: '2000-01-01T00:00:00Z',
          });
          const body = (await expectStatus(response, 400)) as { error: string };
          assert.equal(typeof body.error, 'string');
        },
      },
    ],
  },
];
