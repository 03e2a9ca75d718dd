import { randomUUID } from 'node:crypto';
import examples from '@octokit/webhooks-examples';
import { sign } from '@octokit/webhooks-methods';
import { startTestServer, type TestServer } from '@parley/plugin-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMATTED_GITHUB_EVENTS, formatGithubEvent } from './format-github-event';
import { githubPlugin } from './github-plugin';
import type { GithubPayload } from './github-payload';

const SECRET = 'recorded-deliveries-secret';

/** Delivers a body to a server's `/github/webhook`, signed the way GitHub signs it. */
async function deliver(baseUrl: string, event: string, body: string, deliveryId = randomUUID()) {
  return fetch(`${baseUrl}/github/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': await sign(SECRET, body),
    },
    body,
  });
}

describe('recorded GitHub deliveries (@octokit/webhooks-examples)', () => {
  const channel = randomUUID();
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(githubPlugin, {
      settings: { GITHUB_WEBHOOK_SECRET: SECRET, NOTIFICATION_CHANNEL_ID: channel },
    });
  });
  afterAll(() => server?.stop());

  it('answers 200 to every recorded payload and posts exactly the kinds it formats', async () => {
    const postedKinds = new Set<string>();
    let posted = 0;
    for (const definition of examples) {
      for (const payload of definition.examples) {
        const body = JSON.stringify(payload);
        const response = await deliver(server.url, definition.name, body);
        expect(response.status, definition.name).toBe(200);
        const answer = (await response.json()) as { success: boolean; messageId?: string };
        expect(answer.success, definition.name).toBe(true);
        const expected = formatGithubEvent(definition.name, payload as unknown as GithubPayload);
        expect(answer.messageId !== undefined, definition.name).toBe(expected !== undefined);
        if (answer.messageId === undefined) continue;
        posted += 1;
        postedKinds.add(definition.name);
        const [latest] = await server.listMessages(channel);
        expect(latest).toMatchObject({ id: answer.messageId, content: expected });
      }
    }
    expect(posted).toBeGreaterThan(150);
    for (const kind of [
      'ping',
      'push',
      'issues',
      'issue_comment',
      'pull_request',
      'pull_request_review',
      'pull_request_review_comment',
      'release',
      'workflow_run',
      'check_suite',
      'check_run',
      'star',
      'watch',
      'fork',
      'create',
      'delete',
      'discussion',
      'discussion_comment',
      'deployment',
      'deployment_status',
    ]) {
      expect(FORMATTED_GITHUB_EVENTS).toContain(kind);
      expect(postedKinds, kind).toContain(kind);
    }
  });

  it('accepts a push of 2,048 commits (over 1 MiB, within GitHub’s 25 MB cap)', async () => {
    const pushes = examples.find((definition) => definition.name === 'push')!
      .examples as unknown as { commits: Record<string, unknown>[] }[];
    const sample = pushes.find((example) => example.commits.length > 0)!;
    const commit = sample.commits[0]!;
    const commits = Array.from({ length: 2048 }, (_, index) => ({
      ...commit,
      id: index.toString(16).padStart(40, '0'),
      message: `Commit ${index}: ${'a fairly long commit message line '.repeat(8)}`,
      added: ['src/a-file-with-a-long-name.ts', 'src/another-file-with-a-long-name.ts'],
    }));
    const body = JSON.stringify({
      ...sample,
      ref: 'refs/heads/main',
      created: false,
      forced: false,
      compare: 'https://github.com/Codertocat/Hello-World/compare/aaa...bbb',
      commits,
    });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const response = await deliver(server.url, 'push', body);
    expect(response.status).toBe(200);
    const [latest] = await server.listMessages(channel);
    expect(latest?.content).toMatch(
      /^Codertocat pushed 2048 commits to main in Codertocat\/Hello-World: Commit 0: .*; and 2045 more https:\/\/github\.com\/Codertocat\/Hello-World\/compare\/aaa\.\.\.bbb$/,
    );
  });
});
