import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeOpenAIServer, toSseEvents, type FakeOpenAIServer } from '@parley/server/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../support/start-app';

/**
 * The five most common elizaOS 1.x character shapes, written as elizaOS's documentation and its default Eliza
 * write them (infrastructure plugins, a model-provider plugin, model settings and secrets in `settings`), each
 * started by the real app unchanged. The model providers that speak OpenAI's API talk to a fake
 * OpenAI-compatible server on 127.0.0.1, which checks the model name and key each request carries.
 */

const INFRA_FIRST = '@elizaos/plugin-sql';
const INFRA_LAST = '@elizaos/plugin-bootstrap';

/** The default Eliza of elizaOS 1.x, as `elizaos create` writes it (its plugins chosen by the keys present). */
const ELIZA = {
  name: 'Eliza',
  plugins: [INFRA_FIRST, INFRA_LAST],
  settings: { secrets: {}, avatar: 'https://elizaos.github.io/eliza-avatars/Eliza/portrait.png' },
  system:
    'Respond to all messages in a helpful, conversational manner. Provide assistance on a wide range of topics, using knowledge when needed. Be concise but thorough, friendly but professional.',
  bio: [
    'Engages with all types of questions and conversations',
    'Provides helpful, concise responses',
    'Uses knowledge resources effectively when needed',
  ],
  topics: ['general knowledge and information', 'problem solving and troubleshooting'],
  messageExamples: [
    [
      { name: '{{name1}}', content: { text: 'This user keeps derailing technical discussions.' } },
      { name: 'Eliza', content: { text: 'Has anyone tried talking to them directly?' } },
    ],
  ],
  style: {
    all: ['Keep responses concise but informative', 'Use clear and direct language'],
    chat: ['Be conversational and natural'],
  },
};

interface SeenRequest {
  authorization: string | undefined;
  model: unknown;
  tools: string[];
}

let folder: string;
let fake: FakeOpenAIServer;
const seen: SeenRequest[] = [];
let app: RunningApp | undefined;

/** A model that answers elizaOS's XML while tools are offered (HELLO_WORLD on "say hello"), plain text otherwise. */
function answer(body: Record<string, unknown>): readonly string[] {
  const messages = body.messages as { role: string; content: unknown }[];
  const last = messages.at(-1);
  const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
  if (last?.role === 'tool') return toSseEvents(`The action answered: ${text}`, 16);
  const tools = (body.tools as { function: { name: string } }[] | undefined) ?? [];
  if (/say hello/i.test(text) && tools.some((tool) => tool.function.name === 'HELLO_WORLD')) {
    return toSseEvents(
      '<response><thought>The user wants a greeting.</thought><actions>REPLY,HELLO_WORLD</actions><text>Saying hello.</text></response>',
      16,
    );
  }
  return toSseEvents('Hello from the configured model.', 8);
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'parley-elizaos-characters-'));
  fake = await startFakeOpenAIServer({
    events: answer,
    onRequest: ({ headers, body }) => {
      const request = body as { model?: unknown; tools?: { function: { name: string } }[] };
      seen.push({
        authorization: headers.authorization,
        model: request.model,
        tools: (request.tools ?? []).map((tool) => tool.function.name),
      });
    },
  });
}, 60_000);

afterEach(async () => {
  await app?.stop();
  app = undefined;
});

afterAll(async () => {
  await fake?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** Writes the character as a file and starts the app with it and `env` only. */
async function start(character: object, env: Record<string, string> = {}): Promise<RunningApp> {
  const path = join(folder, `${randomUUID()}.json`);
  await writeFile(path, JSON.stringify(character, null, 2));
  app = await startApp(path, {
    DATA_DIR: join(folder, `data-${randomUUID()}`),
    LOG_LEVEL: 'info',
    ...env,
  });
  return app;
}

interface SyncAnswer {
  success: boolean;
  agentResponse: {
    text: string;
    actions: string[];
    toolCalls?: { toolName: string; error?: string }[];
  };
}

/** Says `text` in a fresh channel, `sync`, and resolves with the answer and the channel's id. */
async function say(running: RunningApp, text: string) {
  const channelId = randomUUID();
  const response = await fetch(`${running.url}/api/messaging/channels/${channelId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text, entityId: randomUUID(), senderName: 'Grace', mode: 'sync' }),
  });
  const body = (await response.json()) as SyncAnswer;
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.success).toBe(true);
  return { body, channelId };
}

/** The requests the fake model received while `run` ran. */
async function requestsDuring(run: () => Promise<unknown>): Promise<SeenRequest[]> {
  const before = seen.length;
  await run();
  return seen.slice(before);
}

/** The info line start-up logged about one plugin of one character. */
const lineAbout = (running: RunningApp, plugin: string) =>
  running
    .output()
    .split('\n')
    .filter((line) => line.includes(plugin) && line.includes('"level":30'));

describe('elizaOS 1.x characters as people have them, started by the real app', () => {
  it('the default Eliza (plugin-sql, plugin-bootstrap, no model key): starts, says what replaces each, answers offline', async () => {
    const running = await start(ELIZA);
    expect(lineAbout(running, INFRA_FIRST)).toHaveLength(1);
    expect(lineAbout(running, INFRA_FIRST)[0]).toContain("Parley's own storage");
    expect(lineAbout(running, INFRA_LAST)[0]).toContain("Parley's agent loop");
    const requests = await requestsDuring(async () => {
      const { body } = await say(running, 'Hello Eliza');
      expect(body.agentResponse.text.trim()).not.toBe('');
    });
    // No model plugin, no MODEL_PROVIDER: the offline responder answered, nothing reached a model server.
    expect(requests).toHaveLength(0);
    expect(running.output()).not.toContain('was not found');
  });

  it('plugin-openai with its key in settings.secrets and OPENAI_BASE_URL in the environment: the configured server gets the model and key; plugin-starter’s HELLO_WORLD named in XML runs and its callback reaches the channel', async () => {
    const key = `sk-proj-${randomUUID()}`;
    const running = await start(
      {
        ...ELIZA,
        name: 'Ada',
        plugins: [INFRA_FIRST, '@elizaos/plugin-openai', INFRA_LAST, '@elizaos/plugin-starter'],
        settings: {
          OPENAI_SMALL_MODEL: 'gpt-4o-mini',
          OPENAI_LARGE_MODEL: 'gpt-4o-ada-test',
          secrets: { OPENAI_API_KEY: key },
        },
      },
      // elizaOS users keep the endpoint in .env, which the app reads as the environment.
      { OPENAI_BASE_URL: fake.url },
    );
    let channelId = '';
    let reply: SyncAnswer | undefined;
    const requests = await requestsDuring(async () => {
      ({ body: reply, channelId } = await say(running, 'Please say hello'));
    });
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const request of requests) {
      expect(request.model).toBe('gpt-4o-ada-test');
      expect(request.authorization).toBe(`Bearer ${key}`);
    }
    // Native tools were offered, and the model answered in XML anyway: the named action ran.
    expect(requests[0]!.tools).toContain('HELLO_WORLD');
    expect(reply!.agentResponse.toolCalls?.map((call) => call.toolName)).toEqual(['HELLO_WORLD']);
    expect(reply!.agentResponse.toolCalls![0]!.error).toBeUndefined();
    expect(reply!.agentResponse.actions).toEqual(['HELLO_WORLD', 'REPLY']);
    const history = (await (
      await fetch(`${running.url}/api/messaging/channels/${channelId}/messages`)
    ).json()) as { data: { messages: { author_name: string; content: string }[] } };
    expect(
      history.data.messages.filter((m) => m.author_name === 'Ada').map((m) => m.content),
    ).toContain('Hello world!');
    // The key is a secret: it is in no line the app wrote.
    expect(running.output()).not.toContain(key);
    expect(lineAbout(running, '@elizaos/plugin-openai')[0]).toContain(
      'OPENAI_API_KEY from the character',
    );
  });

  it('plugin-ollama with OLLAMA_API_ENDPOINT and OLLAMA_LARGE_MODEL in settings: Ollama’s OpenAI-compatible endpoint, no key sent', async () => {
    const running = await start({
      ...ELIZA,
      name: 'Olla',
      plugins: [INFRA_FIRST, '@elizaos/plugin-ollama', INFRA_LAST],
      settings: {
        // elizaOS's Ollama plugin takes the native API's address; the fake answers where /v1 is.
        OLLAMA_API_ENDPOINT: fake.url.replace(/\/v1$/, '/api'),
        OLLAMA_SMALL_MODEL: 'llama3.2:3b',
        OLLAMA_LARGE_MODEL: 'llama3.1:8b',
      },
    });
    const requests = await requestsDuring(() => say(running, 'Hi'));
    expect(requests.map((request) => [request.model, request.authorization])).toEqual([
      ['llama3.1:8b', undefined],
    ]);
  });

  it('plugin-openrouter with its key in secrets and LARGE_MODEL in settings', async () => {
    const key = `sk-or-v1-${randomUUID()}`;
    const running = await start({
      ...ELIZA,
      name: 'Rou',
      plugins: [INFRA_FIRST, '@elizaos/plugin-openrouter', INFRA_LAST],
      settings: {
        OPENROUTER_BASE_URL: fake.url,
        LARGE_MODEL: 'anthropic/claude-3.5-sonnet',
        secrets: { OPENROUTER_API_KEY: key },
      },
    });
    const requests = await requestsDuring(() => say(running, 'Hi'));
    expect(requests.map((request) => [request.model, request.authorization])).toEqual([
      ['anthropic/claude-3.5-sonnet', `Bearer ${key}`],
    ]);
    expect(running.output()).not.toContain(key);
  });

  it('plugin-anthropic with ANTHROPIC_API_KEY in secrets: through an OpenAI-compatible endpoint (ANTHROPIC_BASE_URL), and the line says so', async () => {
    const key = `sk-ant-api03-${randomUUID()}`;
    const running = await start(
      {
        ...ELIZA,
        name: 'Claudia',
        plugins: [INFRA_FIRST, '@elizaos/plugin-anthropic', INFRA_LAST],
        settings: {
          ANTHROPIC_SMALL_MODEL: 'claude-3-5-haiku-latest',
          ANTHROPIC_LARGE_MODEL: 'claude-3-5-sonnet-latest',
          secrets: { ANTHROPIC_API_KEY: key },
        },
      },
      // Standing in for https://api.anthropic.com/v1, Anthropic's OpenAI-compatible endpoint.
      { ANTHROPIC_BASE_URL: fake.url },
    );
    const requests = await requestsDuring(() => say(running, 'Hi'));
    expect(requests.map((request) => [request.model, request.authorization])).toEqual([
      ['claude-3-5-sonnet-latest', `Bearer ${key}`],
    ]);
    expect(lineAbout(running, '@elizaos/plugin-anthropic')[0]).toContain(
      "Anthropic's OpenAI-compatible endpoint",
    );
    expect(running.output()).not.toContain(key);
  });
});
