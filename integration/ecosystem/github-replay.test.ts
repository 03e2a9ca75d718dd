import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { githubPlugin, signGithubPayload } from '@parley/example-github';
import { createLogger, createServer } from '@parley/server';
import { afterAll, beforeAll, expect, it } from 'vitest';

const SECRET = 'replay-secret';
const STAR = {
  action: 'created',
  starred_at: '2026-11-22T12:00:00Z',
  repository: { full_name: 'octo/repo', html_url: 'https://github.com/octo/repo' },
  sender: { login: 'octocat' },
};

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'parley-github-replay-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** A server with the GitHub plugin on the same embedded database every time, as after a restart. */
async function startOnDisk(channel: string) {
  const server = createServer({
    port: 0,
    plugins: [githubPlugin],
    characters: [
      {
        name: 'Hubot',
        settings: { GITHUB_WEBHOOK_SECRET: SECRET, NOTIFICATION_CHANNEL_ID: channel },
      },
    ],
    env: {},
    logger: createLogger('silent'),
    database: { kind: 'pglite', dataDir },
  });
  const { url } = await server.start();
  return { url, stop: () => server.stop() };
}

function deliver(url: string, deliveryId?: string) {
  const body = JSON.stringify(STAR);
  return fetch(`${url}/github/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'star',
      'x-hub-signature-256': signGithubPayload(body, SECRET),
      ...(deliveryId ? { 'x-github-delivery': deliveryId } : {}),
    },
    body,
  });
}

async function messagesIn(url: string, channel: string): Promise<{ id: string }[]> {
  const response = await fetch(`${url}/api/messaging/channels/${channel}/messages`);
  return ((await response.json()) as { data: { messages: { id: string }[] } }).data.messages;
}

it(
  'posts a GitHub delivery once, also when it is replayed concurrently and after a restart',
  { timeout: 120_000 },
  async () => {
    const channel = randomUUID();
    const deliveryId = randomUUID();
    const first = await startOnDisk(channel);
    const answers = await Promise.all(
      [1, 2, 3].map(async () => {
        const response = await deliver(first.url, deliveryId);
        expect(response.status).toBe(200);
        return (await response.json()) as { messageId: string; duplicate?: boolean };
      }),
    );
    expect(answers.filter((answer) => answer.duplicate === true)).toHaveLength(2);
    expect(new Set(answers.map((answer) => answer.messageId)).size).toBe(1);
    // Without a delivery id every delivery posts.
    expect(((await (await deliver(first.url)).json()) as { duplicate?: boolean }).duplicate).toBe(
      undefined,
    );
    await first.stop();

    const second = await startOnDisk(channel);
    try {
      const replay = await deliver(second.url, deliveryId);
      expect(await replay.json()).toMatchObject({
        success: true,
        duplicate: true,
        messageId: answers[0]!.messageId,
      });
      expect(await messagesIn(second.url, channel)).toHaveLength(2);
    } finally {
      await second.stop();
    }
  },
);
