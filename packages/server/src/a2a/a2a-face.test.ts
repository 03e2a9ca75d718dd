import { randomUUID } from 'node:crypto';
import { TaskState, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { defineAction, type Plugin } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aUserMessage } from '../../test/a2a-message';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createOpenAICompatibleModel } from '../models';
import { toSseEvents, toToolCallEvents } from '../models/testing/chat-completion-bodies';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../models/testing/fake-openai-server';
import { channelOfContext } from './a2a-routes';

const TOKEN = 'a2a-face-secret-token';
const CHARACTER_SECRET = 'sk-a2a-character-secret-value';

const weather: Plugin = {
  name: 'weather',
  description: 'Weather lookups',
  actions: [
    defineAction({
      name: 'LOOKUP',
      description: 'Looks up the weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
      handler: () => ({ success: true, text: 'hot' }),
    }),
    defineAction({
      name: 'DEPLOY',
      description: 'Deploys the app',
      parameters: { type: 'object', properties: { target: { type: 'string' } } },
      needsApproval: true,
      handler: () => ({ success: true, text: 'Deployed' }),
    }),
  ],
};

/** A long answer, for cancelling mid-stream. */
const LONG = 'word '.repeat(400);

const userMessage = a2aUserMessage;

const withToken: typeof fetch = (input, init) =>
  fetch(input, {
    ...init,
    headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${TOKEN}` },
  });

const textOfTask = (task: Task) =>
  (task.status?.message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');

describe('the A2A face, driven by the official @a2a-js/sdk client', () => {
  let upstream: FakeOpenAIServer;
  let slowUpstream: FakeOpenAIServer;
  let test: TestServer;
  let slow: TestServer;
  let agentId: string;
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: withToken })],
  });

  beforeAll(async () => {
    upstream = await startFakeOpenAIServer({
      events: (body) => {
        const { messages, tools } = body as { messages: { content: unknown }[]; tools?: unknown[] };
        const last = JSON.stringify(messages.at(-1)?.content ?? '');
        if (tools && /deploy now/i.test(last)) {
          return toToolCallEvents([
            { id: 'call_deploy', name: 'DEPLOY', arguments: '{"target":"prod"}' },
          ]);
        }
        return toSseEvents('Hello from the agent', 4);
      },
    });
    slowUpstream = await startFakeOpenAIServer({ reply: LONG, chunkSize: 5, chunkDelayMs: 5 });
    const model = createOpenAICompatibleModel({
      baseUrl: upstream.url,
      model: 'fake',
      timeoutMs: 10_000,
    });
    const slowModel = createOpenAICompatibleModel({
      baseUrl: slowUpstream.url,
      model: 'fake',
      timeoutMs: 10_000,
    });
    [test, slow] = await Promise.all([
      startTestServer({
        model,
        plugins: [weather],
        authToken: TOKEN,
        characters: [
          {
            name: 'Ada',
            bio: [`Reachable with ${CHARACTER_SECRET}.`],
            secrets: { SUPPORT_LINE: CHARACTER_SECRET },
          },
        ],
      }),
      startTestServer({ model: slowModel, authToken: TOKEN }),
    ]);
    agentId = test.server.agents.defaultAgent.agentId;
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
    await slow?.[Symbol.asyncDispose]();
    await upstream?.close();
    await slowUpstream?.close();
  });

  async function history(server: TestServer, channelId: string) {
    const response = await fetch(
      `${server.url}/api/messaging/channels/${channelId}/messages?limit=100`,
      { headers: { 'x-api-key': TOKEN } },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { messages: { content: string }[] } };
    return body.data.messages.map((message) => message.content);
  }

  it('serves a card per agent (default at the well-known path): skills from its actions, the token as schemes', async () => {
    const card = (await (await fetch(`${test.url}/.well-known/agent-card.json`)).json()) as {
      name: string;
      description: string;
      supportedInterfaces: { url: string; protocolBinding: string }[];
      skills: { id: string }[];
      securitySchemes: Record<string, unknown>;
    };
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${test.url}/a2a/${agentId}`,
      protocolBinding: 'JSONRPC',
    });
    expect(card.skills.map((skill) => skill.id)).toContain('LOOKUP');
    expect(Object.keys(card.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);
    // The card is open: the bio's secret is redacted, and the token is nowhere in it.
    expect(card.description).toBe('Reachable with [redacted].');
    expect(JSON.stringify(card)).not.toContain(CHARACTER_SECRET);
    expect(JSON.stringify(card)).not.toContain(TOKEN);
    const perAgent = await fetch(`${test.url}/a2a/${agentId}/.well-known/agent-card.json`);
    expect(((await perAgent.json()) as { name: string }).name).toBe(card.name);
    const unknown = await fetch(`${test.url}/a2a/${randomUUID()}/.well-known/agent-card.json`);
    expect(unknown.status).toBe(404);
  });

  it('sends a message: the task completes with the answer, which shows in the context channel history; get finds it', async () => {
    const client: Client = await factory.createFromUrl(test.url);
    const contextId = randomUUID();
    const result = await client.sendMessage(userMessage('hi there', contextId));
    const task = result as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfTask(task)).toBe('Hello from the agent');
    expect(task.contextId).toBe(contextId);
    const messages = await history(test, contextId);
    expect(messages).toContain('hi there');
    expect(messages).toContain('Hello from the agent');
    const got = await client.getTask({ tenant: '', id: task.id });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('streams a message: working, the answer in artifact pieces, then completed', async () => {
    const client = await factory.createFromUrl(test.url);
    const states: TaskState[] = [];
    let streamed = '';
    for await (const event of client.sendMessageStream(userMessage('stream please'))) {
      const payload = event.payload;
      if (payload?.$case === 'task') states.push(payload.value.status!.state);
      if (payload?.$case === 'statusUpdate') states.push(payload.value.status!.state);
      if (payload?.$case === 'artifactUpdate') {
        for (const part of payload.value.artifact?.parts ?? []) {
          if (part.content?.$case === 'text') streamed += part.content.value;
        }
      }
    }
    expect(states[0]).toBe(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(streamed).toBe('Hello from the agent');
  });

  it('cancels a running task: it ends canceled and the reply is not stored', async () => {
    const client = await factory.createFromUrl(slow.url);
    const contextId = randomUUID();
    const states: TaskState[] = [];
    let taskId: string | undefined;
    let cancelled = false;
    for await (const event of client.sendMessageStream(userMessage('go long', contextId))) {
      const payload = event.payload;
      if (payload?.$case === 'task') taskId = payload.value.id;
      if (payload?.$case === 'statusUpdate') states.push(payload.value.status!.state);
      // Cancelled at the first piece of the answer: the rest of it never comes.
      if (payload?.$case === 'artifactUpdate' && taskId && !cancelled) {
        cancelled = true;
        await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      }
    }
    expect(cancelled).toBe(true);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    const got = await client.getTask({ tenant: '', id: taskId! });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await history(slow, contextId)).some((text) => text.startsWith('word word'))).toBe(
      false,
    );
  });

  it('a reply waiting for an approval makes the task input-required; the approval request is in the channel API', async () => {
    const client = await factory.createFromUrl(test.url);
    const contextId = randomUUID();
    const task = (await client.sendMessage(userMessage('deploy now', contextId))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOfTask(task)).toContain('waiting for a person to approve DEPLOY');
    const got = await client.getTask({ tenant: '', id: task.id });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // Approved through the channel API: the reply goes on, and the task ends completed with the answer.
    const replyId = /replies\/([0-9a-f-]+)\/approvals/.exec(textOfTask(task))![1]!;
    const decided = await fetch(`${test.url}/api/messaging/replies/${replyId}/approvals`, {
      method: 'POST',
      headers: { 'x-api-key': TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ toolCallId: 'call_deploy', approved: true }),
    });
    expect(decided.status).toBe(202);
    let after = await client.getTask({ tenant: '', id: task.id });
    while (after.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await client.getTask({ tenant: '', id: task.id });
    }
    expect(after.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfTask(after)).toBe('Hello from the agent');
  });

  it('approvals are answered over A2A too: a data part on the waiting task decides, and the task goes on to its end', async () => {
    const client = await factory.createFromUrl(test.url);
    const contextId = randomUUID();
    const task = (await client.sendMessage(userMessage('deploy now', contextId))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answer = (data: unknown): SendMessageRequest => {
      const request = userMessage('', contextId);
      request.message!.taskId = task.id;
      request.message!.parts = [
        {
          content: { $case: 'data', value: data },
          metadata: undefined,
          filename: '',
          mediaType: '',
        },
      ];
      return request;
    };
    // Not a decision: the task still waits and says why; nothing was decided.
    const bad = (await client.sendMessage(answer({ approval: { approved: 'yes' } }))) as Task;
    expect(bad.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOfTask(bad)).toMatch(/toolCallId|approved/);
    // An unknown call: refused with the reason, still waiting.
    const unknown = (await client.sendMessage(
      answer({ approval: { toolCallId: 'call_nobody', approved: true } }),
    )) as Task;
    expect(unknown.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // The decision: the reply goes on, runs the call, and the task completes with the answer.
    const done = (await client.sendMessage(
      answer({ approval: { toolCallId: 'call_deploy', approved: true } }),
    )) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfTask(done)).toContain('Hello from the agent');
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
    expect(await history(test, contextId)).toContain('Hello from the agent');
  });

  it('a message without text, or over the length limit, fails its task with the reason; the server goes on', async () => {
    const client = await factory.createFromUrl(test.url);
    const empty = userMessage('');
    const [noText, tooLong] = (await Promise.all([
      client.sendMessage(empty),
      client.sendMessage(userMessage('x'.repeat(200_000))),
    ])) as [Task, Task];
    expect(noText.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOfTask(noText)).toBe('The message has no text part');
    expect(tooLong.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOfTask(tooLong)).toMatch(/message/i);
    expect(await history(test, tooLong.contextId)).toEqual([]);
    const after = (await client.sendMessage(userMessage('still there?'))) as Task;
    expect(after.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a context id that is not a UUID names one channel per agent, the same every time', () => {
    const one = channelOfContext(agentId, 'my-conversation');
    expect(one).toBe(channelOfContext(agentId, 'my-conversation'));
    expect(one).not.toBe(channelOfContext(agentId, 'another'));
    expect(one).not.toBe(channelOfContext(randomUUID(), 'my-conversation'));
  });

  it('answers the A2A 0.3 method names too: message/send, then tasks/get finds the task in the 0.3 shape', async () => {
    const call = async (method: string, params: unknown) => {
      const response = await fetch(`${test.url}/a2a/${agentId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: method, method, params }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as {
        result?: { id: string; kind: string; status: { state: string } };
        error?: { code: number };
      };
    };
    const contextId = randomUUID();
    const sent = await call('message/send', {
      message: {
        kind: 'message',
        messageId: randomUUID(),
        contextId,
        role: 'user',
        parts: [{ kind: 'text', text: 'old client here' }],
      },
    });
    expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const got = await call('tasks/get', { id: sent.result!.id });
    expect(got.result).toMatchObject({ id: sent.result!.id, status: { state: 'completed' } });
    expect(await history(test, contextId)).toContain('old client here');
    const unknown = await call('tasks/get', { id: 'no-such-task' });
    expect(unknown.error?.code).toBe(-32001);
  });

  it('answers bad JSON-RPC with its error codes, never a 500, and asks for the token', async () => {
    const post = async (body: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${test.url}/a2a/${agentId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TOKEN, ...headers },
        body,
      });
      return {
        status: response.status,
        body: (await response.json()) as { error: { code: number } },
      };
    };
    const results = await Promise.all([
      post('{not json'),
      post('[]'),
      post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'NoSuchMethod', params: {} })),
      post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'nope' } })),
      post(
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message: 5 } }),
      ),
    ]);
    expect(results.map((result) => result.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results[0].body.error.code).toBe(-32700);
    expect(results[1].body.error.code).toBe(-32600);
    expect(results[2].body.error.code).toBe(-32601);
    expect(results[3].body.error.code).toBe(-32001);
    expect(results[4].body.error.code).toBe(-32602);
    // A task that ended cannot be cancelled; a wrong content type is refused by the guard.
    const client = await factory.createFromUrl(test.url);
    const done = (await client.sendMessage(userMessage('quick one'))) as Task;
    const cancel = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'CancelTask', params: { id: done.id } }),
    );
    expect(cancel.body.error.code).toBe(-32002);
    const wrongType = await post('{}', { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    const noToken = await fetch(`${test.url}/a2a/${agentId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(noToken.status).toBe(401);
    expect(JSON.stringify(await noToken.json())).not.toContain(TOKEN);
  });
});
