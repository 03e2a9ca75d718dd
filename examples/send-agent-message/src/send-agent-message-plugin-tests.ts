import { strict as assert } from 'node:assert';
import type { AgentRuntime, PluginTestSuite } from '@parley/plugin-sdk';
import { expectStatus, fetchRoute } from '@parley/plugin-sdk/testing';

/** A channel of the test run's own, so that a test never posts into a real channel. */
const TEST_CHANNEL = '2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901';

function send(runtime: AgentRuntime, body: unknown) {
  return fetchRoute(runtime, '/send-agent-message', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The plugin's own tests: the message goes through the real messaging interface at SERVER_URL. */
export const sendAgentMessagePluginTests: PluginTestSuite[] = [
  {
    name: 'send-agent-message route',
    tests: [
      {
        name: 'POST /send-agent-message posts through the messaging interface',
        async fn(runtime) {
          const response = await send(runtime, {
            channelId: TEST_CHANNEL,
            message: 'plugin self-test',
          });
          const body = (await expectStatus(response, 200)) as {
            success: boolean;
            messageId: string;
          };
          assert.equal(body.success, true);
          assert.equal(typeof body.messageId, 'string');
        },
      },
      {
        name: 'POST /send-agent-message without channelId is a 400',
        async fn(runtime) {
          const body = (await expectStatus(await send(runtime, { message: 'lost' }), 400)) as {
            success: boolean;
          };
          assert.equal(body.success, false);
        },
      },
    ],
  },
];
