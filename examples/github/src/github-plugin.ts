import { definePlugin, isUuid } from '@parley/plugin-sdk';
import { githubPluginTests } from './github-plugin-tests';
import { githubWebhookRoute } from './github-webhook-route';

/**
 * The GitHub example plugin: `POST /github/webhook` verifies deliveries with `GITHUB_WEBHOOK_SECRET` and posts
 * `ping`, `push`, `issues` and `pull_request` events into `NOTIFICATION_CHANNEL_ID` as the agent.
 */
export const githubPlugin = definePlugin({
  name: 'github',
  description: 'Posts verified GitHub webhook events into a channel.',
  routes: [githubWebhookRoute],
  init(_config, runtime) {
    if (!runtime.getSetting('GITHUB_WEBHOOK_SECRET')) {
      runtime.logger.warn('GITHUB_WEBHOOK_SECRET is not set: POST /github/webhook answers 500');
    }
    if (!isUuid(runtime.getSetting('NOTIFICATION_CHANNEL_ID'))) {
      runtime.logger.warn(
        'NOTIFICATION_CHANNEL_ID is not a UUID: GitHub events are acknowledged, not posted',
      );
    }
  },
  tests: githubPluginTests,
});
