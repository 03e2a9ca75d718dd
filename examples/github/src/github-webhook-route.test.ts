import { createHmac, randomUUID } from 'node:crypto';
import type { AgentRuntime, Character, RouteRequest } from '@parley/plugin-sdk';
import {
  recordResponse,
  runPluginTests,
  startTestServer,
  type TestServer,
} from '@parley/plugin-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubPlugin } from './github-plugin';
import { githubWebhookRoute } from './github-webhook-route';

const SECRET = 'It’s a Secret to Everybody';
const CHANNEL = 'a0f5a6d4-5c1e-4f0e-9a3b-6f9f0e1d2c3b';
const characters: Character[] = [
  { name: 'Hubot' },
  { name: 'Unrouted', settings: { NOTIFICATION_CHANNEL_ID: 'not-a-uuid' } },
  { name: 'Unconfigured', settings: { GITHUB_WEBHOOK_SECRET: '' } },
];
const settings = { GITHUB_WEBHOOK_SECRET: SECRET, NOTIFICATION_CHANNEL_ID: CHANNEL };
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(githubPlugin, { characters, settings });
});
afterAll(() => server?.stop());

function sign(body: string, secret = SECRET) {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function deliver(
  event: string | undefined,
  payload: unknown,
  options: {
    signature?: string | null;
    agent?: number;
    body?: string;
    contentType?: string;
    deliveryId?: string;
  } = {},
) {
  const body = options.body ?? JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
    'x-github-delivery': options.deliveryId ?? randomUUID(),
  };
  if (event !== undefined) headers['x-github-event'] = event;
  const signature = options.signature === undefined ? sign(body) : options.signature;
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  const agent = server.agents[options.agent ?? 0]!;
  return fetch(`${server.url}/github/webhook?agentId=${agent.agentId}`, {
    method: 'POST',
    headers,
    body,
  });
}

const push = {
  ref: 'refs/heads/main',
  repository: { full_name: 'octo/repo' },
  sender: { login: 'alice' },
  commits: [{ message: 'Fix it' }, { message: 'Test it' }, { message: 'Ship it' }],
};

/** The payload GitHub sends when `login` opens an issue or a pull request in octo/repo. */
const opened = (kind: 'issue' | 'pull_request', number: number, title: string, login: string) => ({
  action: 'opened',
  [kind]: { number, title },
  repository: { full_name: 'octo/repo' },
  sender: { login },
});

/** The push delivery as the route handler receives it, signed, with `deliveryId` as x-github-delivery if given. */
function signedPush(deliveryId?: string): RouteRequest {
  const body = JSON.stringify(push);
  const headers: Record<string, string> = {
    'x-github-event': 'push',
    'x-hub-signature-256': sign(body),
    'content-type': 'application/json',
  };
  if (deliveryId) headers['x-github-delivery'] = deliveryId;
  return {
    method: 'POST',
    path: '/github/webhook',
    headers,
    body: push,
    rawBody: new TextEncoder().encode(body),
    params: {},
    query: {},
  };
}

describe('POST /github/webhook, verified deliveries', () => {
  it.each([
    [
      'ping',
      { zen: 'Approachable is better than simple.', repository: { full_name: 'octo/repo' } },
      'GitHub webhook connected for octo/repo: "Approachable is better than simple."',
    ],
    ['push', push, 'alice pushed 3 commits to main in octo/repo: Fix it; Test it; Ship it'],
    ['issues', opened('issue', 3, 'Bug', 'bob'), 'bob opened issue #3 in octo/repo: Bug'],
    [
      'pull_request',
      opened('pull_request', 9, 'Feature', 'carol'),
      'carol opened pull request #9 in octo/repo: Feature',
    ],
  ])('posts a %s event into NOTIFICATION_CHANNEL_ID as the agent', async (event, payload, text) => {
    const deliveryId = randomUUID();
    const response = await deliver(event, payload, { deliveryId });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      success: boolean;
      message: string;
      messageId: string;
    };
    expect(body).toMatchObject({ success: true, message: expect.any(String) });

    const [latest] = await server.listMessages(CHANNEL);
    expect(latest).toMatchObject({
      id: body.messageId,
      content: text,
      author_id: server.agents[0]!.agentId,
      metadata: { source: 'github', event, deliveryId },
    });
  });

  it('takes a form-encoded delivery (payload field), the signature covering the raw form', async () => {
    const body = new URLSearchParams({ payload: JSON.stringify(push) }).toString();
    const response = await deliver('push', undefined, {
      body,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(response.status).toBe(200);
    const [latest] = await server.listMessages(CHANNEL);
    expect(latest?.content).toBe(
      'alice pushed 3 commits to main in octo/repo: Fix it; Test it; Ship it',
    );
  });

  it('acknowledges other events without posting', async () => {
    const before = (await server.listMessages(CHANNEL)).length;
    const response = await deliver('installation', { action: 'created' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      success: true,
      message: 'Ignored GitHub event "installation"',
    });
    expect(await server.listMessages(CHANNEL)).toHaveLength(before);
  });

  it('answers 200 { ok: true } and posts nothing when NOTIFICATION_CHANNEL_ID is not a UUID', async () => {
    const response = await deliver('push', push, { agent: 1 });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('answers 400 for a verified delivery without x-github-event or with a non-object payload', async () => {
    expect((await deliver(undefined, push)).status).toBe(400);
    expect((await deliver('push', [1, 2])).status).toBe(400);
  });
});

describe('POST /github/webhook, refused deliveries', () => {
  it.each([
    ['no signature', { signature: null }],
    ['a signature made with another secret', { signature: sign(JSON.stringify(push), 'guess') }],
    ['a signature of another body', { signature: sign('{}') }],
    ['a malformed signature', { signature: 'sha1=abc' }],
  ])('answers 401 with success false for %s, posting nothing', async (_label, options) => {
    const before = (await server.listMessages(CHANNEL)).length;
    const response = await deliver('push', push, options);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ success: false, error: expect.any(String) });
    expect(await server.listMessages(CHANNEL)).toHaveLength(before);
  });

  it('answers 500 when GITHUB_WEBHOOK_SECRET is not configured, even for a delivery signed with ""', async () => {
    const response = await deliver('push', push, {
      agent: 2,
      signature: sign(JSON.stringify(push), ''),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ success: false, error: 'Internal server error' });
  });
});

describe('POST /github/webhook, failures', () => {
  it('posts an issue whose title holds NUL or a lone surrogate, without them', async () => {
    const response = await deliver(
      'issues',
      opened('issue', 4, 'Bad\u0000title \ud800here', 'bob'),
      { deliveryId: randomUUID() },
    );
    expect(response.status).toBe(200);
    const [latest] = await server.listMessages(CHANNEL);
    expect(latest?.content).toContain('Badtitle \ufffdhere');
  });

  it('answers 500 without internal detail when posting the message fails', async () => {
    const logged: unknown[] = [];
    const runtime = {
      agentId: '00000000-0000-4000-8000-000000000009',
      character: { name: 'Broken' },
      getSetting: (key: string) => (settings as Record<string, string>)[key],
      logger: { debug() {}, info() {}, warn() {}, error: (entry: unknown) => logged.push(entry) },
      sendMessage: () => Promise.reject(new Error('database is on fire at 10.0.0.3')),
    } as unknown as AgentRuntime;
    const { response, written } = recordResponse();
    await githubWebhookRoute.handler!(signedPush(), response, runtime);

    expect(written).toEqual({
      headers: {},
      status: 500,
      body: { success: false, error: 'Failed to process the event' },
    });
    expect(JSON.stringify(written.body)).not.toContain('10.0.0.3');
    expect(logged).toHaveLength(1);
  });
});

describe('POST /github/webhook, replayed deliveries', () => {
  /** A runtime whose message ids are unique, as the messages table's primary key makes them. */
  function runtimeWithStore(agentId: string, channel = CHANNEL) {
    const posted = new Map<string, string>();
    const runtime = {
      agentId,
      character: { name: 'Hubot' },
      getSetting: (key: string) =>
        ({ GITHUB_WEBHOOK_SECRET: SECRET, NOTIFICATION_CHANNEL_ID: channel })[key],
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      sendMessage: (post: { id?: string; text: string }) => {
        const id = post.id ?? randomUUID();
        if (posted.has(id))
          return Promise.reject(Object.assign(new Error('taken'), { code: 'CONFLICT' }));
        posted.set(id, post.text);
        return Promise.resolve({ id });
      },
    } as unknown as AgentRuntime;
    return { runtime, posted };
  }

  async function replay(runtime: AgentRuntime, deliveryId: string | undefined) {
    const { response, written } = recordResponse();
    await githubWebhookRoute.handler!(signedPush(deliveryId), response, runtime);
    return written;
  }

  it('posts a delivery once: a replay with the same x-github-delivery is a 200 duplicate', async () => {
    const { runtime, posted } = runtimeWithStore('00000000-0000-4000-8000-000000000001');
    const deliveryId = randomUUID();
    const first = await replay(runtime, deliveryId);
    const again = await Promise.all([replay(runtime, deliveryId), replay(runtime, deliveryId)]);
    expect(posted.size).toBe(1);
    const messageId = (first.body as { messageId: string }).messageId;
    expect([...posted.keys()]).toEqual([messageId]);
    for (const written of again) {
      expect(written.status).toBeUndefined();
      expect(written.body).toEqual({
        success: true,
        duplicate: true,
        message: 'GitHub delivery already processed',
        messageId,
      });
    }
    await replay(runtime, randomUUID());
    expect(posted.size).toBe(2);
  });

  it('derives the same message id after a restart, and another one for another agent or channel', async () => {
    const deliveryId = randomUUID();
    const idOf = async (agentId: string, channel?: string) => {
      const { runtime } = runtimeWithStore(agentId, channel);
      return ((await replay(runtime, deliveryId)).body as { messageId: string }).messageId;
    };
    const agent = '00000000-0000-4000-8000-000000000001';
    const id = await idOf(agent);
    expect(await idOf(agent)).toBe(id);
    expect(await idOf('00000000-0000-4000-8000-000000000002')).not.toBe(id);
    expect(await idOf(agent, '0b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c')).not.toBe(id);
  });

  it('posts every time when GitHub sent no delivery id', async () => {
    const { runtime, posted } = runtimeWithStore('00000000-0000-4000-8000-000000000001');
    await replay(runtime, undefined);
    await replay(runtime, undefined);
    expect(posted.size).toBe(2);
  });
});

describe('the plugin’s own suites', () => {
  it('pass for a configured, an unrouted and an unconfigured agent', async () => {
    const report = await runPluginTests(githubPlugin, { characters, settings });
    expect(report.results.filter((result) => !result.ok)).toEqual([]);
    expect(report.passed).toBe(9);
  });
});
