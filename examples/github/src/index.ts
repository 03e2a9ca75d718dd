/**
 * @module @parley/example-github
 * Example Parley plugin for SPEC.md's third-party event route: `POST /github/webhook`.
 */
export { githubPlugin, githubPlugin as default } from './github-plugin';
export { githubPluginTests } from './github-plugin-tests';
export { githubWebhookRoute } from './github-webhook-route';
export { FORMATTED_GITHUB_EVENTS, formatGithubEvent } from './format-github-event';
export type { GithubPayload } from './github-payload';
export { signGithubPayload } from './sign-github-payload';
