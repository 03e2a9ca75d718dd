import { isUuid } from '@parley/plugin-sdk';
import { strict as assert } from 'node:assert';
import type { AgentRuntime, PluginTestSuite } from '@parley/plugin-sdk';
import { expectStatus, fetchRoute } from '@parley/plugin-sdk/testing';
import { signGithubPayload } from './sign-github-payload';

function deliver(runtime: AgentRuntime, event: string, body: string, signature?: string) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-event': event,
  };
  if (signature) headers['x-hub-signature-256'] = signature;
  return fetchRoute(runtime, '/github/webhook', { method: 'POST', headers, body });
}

/** The GitHub plugin's own tests; they adapt to how the agent is configured and check that behaviour. */
export const githubPluginTests: PluginTestSuite[] = [
  {
    name: 'github webhook',
    tests: [
      {
        name: 'refuses an unsigned delivery',
        async fn(runtime) {
          const configured = Boolean(runtime.getSetting('GITHUB_WEBHOOK_SECRET'));
          const response = await deliver(runtime, 'ping', '{"zen":"unsigned"}');
          await expectStatus(response, configured ? 401 : 500);
        },
      },
      {
        name: 'refuses a delivery signed with another secret',
        async fn(runtime) {
          const secret = runtime.getSetting('GITHUB_WEBHOOK_SECRET');
          const body = '{"zen":"forged"}';
          const response = await deliver(
            runtime,
            'ping',
            body,
            signGithubPayload(body, `${secret}!`),
          );
          await expectStatus(response, secret ? 401 : 500);
        },
      },
      {
        name: 'accepts a signed ping as configured',
        async fn(runtime) {
          const secret = runtime.getSetting('GITHUB_WEBHOOK_SECRET');
          if (!secret) return; // Covered above: an unconfigured secret refuses everything.
          const body = JSON.stringify({
            zen: 'Design for failure.',
            repository: { full_name: 'parley/test' },
          });
          const response = await deliver(runtime, 'ping', body, signGithubPayload(body, secret));
          const answer = (await expectStatus(response, 200)) as { ok?: boolean; success?: boolean };
          if (isUuid(runtime.getSetting('NOTIFICATION_CHANNEL_ID')))
            assert.equal(answer.success, true);
          else assert.deepEqual(answer, { ok: true });
        },
      },
    ],
  },
];
