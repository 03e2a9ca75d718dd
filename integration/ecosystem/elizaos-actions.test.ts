import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeToolModel, type FakeToolModel } from '../support/fake-tool-model';
import { startApp, type RunningApp } from '../support/start-app';

/**
 * Three published elizaOS action plugins, unchanged from npm, run by the real app through Parley's agent loop:
 * a model (a fake OpenAI-compatible server that reads each request) calls their actions as tools, the actions
 * run with Parley's runtime (callbacks, providers, `useModel`, components in the database, services), and the
 * effects are checked where they land: the channel's history, a file on disk, the database across a restart.
 */

const PLUGINS = ['@elizaos/plugin-starter', '@elizaos/plugin-shell', '@elizaos/plugin-cron'];
const SHELL_COMMAND = 'echo hello-from-parley > out.txt';

let folder: string;
let work: string;
let character: string;
let env: Record<string, string>;
let model: FakeToolModel;
let app: RunningApp | undefined;
const channelId = randomUUID();
const entityId = randomUUID();

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'parley-elizaos-actions-'));
  work = join(folder, 'work');
  await mkdir(work);
  await mkdir(join(folder, 'home'));
  model = await startFakeToolModel(
    [
      [/say hello/i, 'HELLO_WORLD'],
      [/out\.txt/, 'EXECUTE_COMMAND'],
      [/create a cron job/i, 'CREATE_CRON'],
      [/list my cron jobs/i, 'LIST_CRONS'],
      [/delete cron job/i, 'DELETE_CRON'],
    ],
    // plugin-shell's EXECUTE_COMMAND asks runtime.useModel for the command, as JSON in a fence.
    (prompt) =>
      prompt.includes('wants to execute a shell command')
        ? `\`\`\`json\n${JSON.stringify({ command: SHELL_COMMAND })}\n\`\`\``
        : undefined,
  );
  character = join(folder, 'ada.json');
  await writeFile(
    character,
    JSON.stringify({
      name: 'Ada',
      plugins: PLUGINS,
      // An object setting, as elizaOS characters write it: plugin-cron reads it from the character and, with
      // its heartbeat off, needs no task system.
      settings: { heartbeat: { enabled: false } },
    }),
  );
  env = {
    DATA_DIR: join(folder, 'data'),
    LOG_LEVEL: 'info',
    MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: model.server.url,
    MODEL: 'fake-model',
    // plugin-shell reads its configuration from the environment; its approval service writes under $HOME.
    SHELL_ENABLED: 'true',
    SHELL_ALLOWED_DIRECTORY: work,
    HOME: join(folder, 'home'),
  };
  app = await startApp(character, env);
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await model?.server.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

interface ToolCall {
  toolName: string;
  input: unknown;
  output?: { text?: string; data?: Record<string, unknown> };
  error?: string;
}

interface SyncAnswer {
  success: boolean;
  agentResponse: { text: string; actions: string[]; toolCalls: ToolCall[] };
}

/** Sends a `sync` channel message and resolves with the answer, the reply's text and tool calls included. */
async function say(text: string): Promise<SyncAnswer> {
  const response = await fetch(`${app!.url}/api/messaging/channels/${channelId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text, entityId, senderName: 'Grace', mode: 'sync' }),
  });
  const body = (await response.json()) as SyncAnswer;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** The one tool call of an answer, which must have succeeded. */
function onlyCall(answer: SyncAnswer, toolName: string): ToolCall {
  expect(answer.agentResponse.toolCalls).toHaveLength(1);
  const [call] = answer.agentResponse.toolCalls;
  expect(call, JSON.stringify(call)).toMatchObject({ toolName });
  expect(call!.error).toBeUndefined();
  return call!;
}

async function history(): Promise<{ author_name: string; content: string }[]> {
  const response = await fetch(`${app!.url}/api/messaging/channels/${channelId}/messages`);
  return (
    (await response.json()) as { data: { messages: { author_name: string; content: string }[] } }
  ).data.messages;
}

describe('@elizaos/plugin-starter: HELLO_WORLD and its provider', () => {
  it('the model calls HELLO_WORLD; its callback posts into the channel and its result goes back', async () => {
    const answer = await say('Please say hello');
    const call = onlyCall(answer, 'HELLO_WORLD');
    expect(call.output).toMatchObject({ text: 'Hello world!', data: { actions: ['HELLO_WORLD'] } });
    expect(answer.agentResponse.actions).toEqual(['HELLO_WORLD', 'REPLY']);
    // The model's answer after the tool quotes the result it was given (text and data, as JSON).
    expect(answer.agentResponse.text).toMatch(/^The tool answered: \{"text":"Hello world!"/);
    // The callback's message, then the reply, both stored as Ada's.
    const messages = await history();
    expect(messages.filter((m) => m.author_name === 'Ada').map((m) => m.content)).toEqual(
      expect.arrayContaining(['Hello world!', answer.agentResponse.text]),
    );
  });

  it('HELLO_WORLD_PROVIDER’s text reaches the model’s system prompt', () => {
    const withTools = model.requests.filter((request) => request.tools);
    expect(withTools.length).toBeGreaterThan(0);
    for (const request of withTools) {
      expect(request.messages[0]).toMatchObject({ role: 'system' });
      expect(String(request.messages[0]!.content)).toContain('I am a provider');
    }
  });
});

describe('@elizaos/plugin-shell: EXECUTE_COMMAND', () => {
  it('asks the model for the command through useModel, runs it in the allowed folder and reports it', async () => {
    const answer = await say('Run a command that writes hello-from-parley to out.txt');
    const call = onlyCall(answer, 'EXECUTE_COMMAND');
    expect(call.output?.text).toMatch(/^Command executed successfully in /);
    expect(await readFile(join(work, 'out.txt'), 'utf8')).toBe('hello-from-parley\n');
    // The plugin's template got the conversation and the sender from Parley's state.
    const prompt = model.requests
      .filter((request) => !request.tools)
      .map((request) => String(request.messages.at(-1)?.content))
      .find((text) => text.includes('wants to execute a shell command'));
    expect(prompt).toContain('Grace: Run a command that writes hello-from-parley to out.txt');
    expect(prompt).toContain('Grace wants to execute a shell command');
  });
});

describe('@elizaos/plugin-cron: jobs kept as components in the database', () => {
  let jobId: string;

  it('CREATE_CRON stores a job', async () => {
    const answer = await say(
      'Create a cron job called "nightly" to summarize the news every 5 minutes',
    );
    const call = onlyCall(answer, 'CREATE_CRON');
    jobId = String(call.output?.data?.jobId);
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    // The callback's message is in the channel.
    expect((await history()).map((m) => m.content)).toContainEqual(
      expect.stringContaining('Created cron job "nightly"'),
    );
  });

  it('the job survives a restart: after SIGTERM (services stopped), LIST_CRONS of a new process lists it', async () => {
    expect(await app!.stop()).toBe(0);
    expect(app!.output()).toContain('[CronService] Stopped');
    // Every runtime member the three plugins used is one Parley offers.
    expect(app!.output()).not.toContain('which Parley does not offer');
    app = await startApp(character, env);
    // The new process's cron service read the job back from the database (runtime.getComponent).
    await expect
      .poll(() => app!.output())
      .toMatch(/\[CronService\] Started for agent \S+ with 1 jobs/);
    const answer = await say('list my cron jobs');
    const call = onlyCall(answer, 'LIST_CRONS');
    expect(call.output?.text).toContain('Found 1 cron job');
    expect(call.output?.text).toContain('nightly');
  });

  it('DELETE_CRON removes it', async () => {
    const deleted = onlyCall(await say(`delete cron job ${jobId}`), 'DELETE_CRON');
    expect(deleted.output?.text).toContain(`Deleted cron job "nightly" (${jobId})`);
    const listed = onlyCall(await say('list my cron jobs'), 'LIST_CRONS');
    expect(listed.output?.text).toMatch(/No (active )?cron jobs found/);
  });

  it('stops cleanly: the plugins’ services stop with the app', async () => {
    expect(await app!.stop()).toBe(0);
    expect(app!.output()).toContain('[CronService] Stopped');
    expect(app!.output()).toContain('Shell service stopped');
    expect(app!.output()).not.toContain('which Parley does not offer');
    app = undefined;
  });
});
