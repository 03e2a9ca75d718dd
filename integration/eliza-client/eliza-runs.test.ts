import { randomUUID } from 'node:crypto';
import { ApiError, ElizaClient } from '@elizaos/api-client';
import { createParleyClient } from '@parley/client';
import { defineAction, definePlugin } from '@parley/plugin-sdk';
import type { ModelProvider } from '@parley/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../support/start-server';

/**
 * elizaOS's own client (`@elizaos/api-client` 1.7.2) reads an agent's runs from a real Parley server: a run is
 * one reply, its events the reply's steps (the tool calls and their results). Replies are made through
 * Parley's own client; the token is set.
 */
const TOKEN = 'eliza-runs-token';

/** `LOOKUP {term}` answers `found <term>`; a term `boom` throws. */
const lookupPlugin = definePlugin({
  name: 'runs-test',
  description: 'an action to call',
  actions: [
    defineAction<{ term: string }>({
      name: 'LOOKUP',
      description: 'Looks a term up',
      parameters: {
        type: 'object',
        properties: { term: { type: 'string' } },
        required: ['term'],
        additionalProperties: false,
      },
      handler: (_runtime, _message, _state, options) => {
        const term = options?.parameters?.term ?? '';
        if (term === 'boom') throw new Error('lookup failed');
        return { success: true, text: `found ${term}` };
      },
    }),
  ],
});

/** Calls `LOOKUP` with the word after "look up", then answers with the tool's result; else says hello. */
function lookupModel(): ModelProvider {
  let calls = 0;
  return {
    name: 'runs-test',
    callsTools: true,
    // eslint-disable-next-line @typescript-eslint/require-await
    async *stream(request) {
      const last = request.messages.at(-1);
      const asked = last?.role === 'user' ? /look up (\w+)/i.exec(last.content) : null;
      if (last?.role === 'tool') {
        yield { type: 'text-delta', delta: `Result: ${last.content}` };
      } else if (asked) {
        calls += 1;
        const input = JSON.stringify({ term: asked[1] });
        yield { type: 'tool-call', toolCallId: `call_${calls}`, toolName: 'LOOKUP', input };
        yield { type: 'finish', finishReason: 'tool-calls' };
        return;
      } else {
        yield { type: 'text-delta', delta: 'Hello.' };
      }
      yield { type: 'finish', finishReason: 'stop' };
    },
  };
}

let running: TestServer;
let eliza: ElizaClient;
let agentId: string;
let otherAgentId: string;
const channelA = randomUUID();
const channelB = randomUUID();
let toolReply: string;
let failedToolReply: string;
let plainReply: string;

async function send(channelId: string, text: string, agent?: string): Promise<string> {
  const parley = createParleyClient({ baseUrl: running.url, apiKey: TOKEN });
  const result = await parley.sendMessage(channelId, {
    text,
    entityId: 'user-1',
    mode: 'sync',
    ...(agent && { agentId: agent }),
  });
  expect(result.replyId).toEqual(expect.any(String));
  return result.replyId!;
}

async function statusOf(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
  return undefined;
}

beforeAll(async () => {
  running = await startServer({
    authToken: TOKEN,
    model: lookupModel(),
    characters: [{ name: 'Runner' }, { name: 'Other' }],
    plugins: [lookupPlugin],
  });
  eliza = new ElizaClient({ baseUrl: running.url, apiKey: TOKEN });
  const { agents } = await eliza.agents.listAgents();
  agentId = agents.find((agent) => agent.name === 'Runner')!.id!;
  otherAgentId = agents.find((agent) => agent.name === 'Other')!.id!;
  toolReply = await send(channelA, 'please look up parley');
  failedToolReply = await send(channelA, 'please look up boom');
  plainReply = await send(channelB, 'hi there');
});
afterAll(() => running?.server.stop());

describe('@elizaos/api-client 1.7.2: runs', () => {
  it("runs.getRun gives a reply's steps as elizaOS's run events", async () => {
    const run = await eliza.runs.getRun(agentId as never, toolReply as never);
    expect(run.summary).toMatchObject({
      runId: toolReply,
      status: 'completed',
      roomId: channelA,
      counts: { actions: 1, errors: 0, modelCalls: 2, evaluators: 0 },
    });
    expect(typeof run.summary.startedAt).toBe('number');
    expect(run.events.map((event) => event.type)).toEqual([
      'RUN_STARTED',
      'ACTION_STARTED',
      'ACTION_COMPLETED',
      'RUN_ENDED',
    ]);
    expect(run.events[1]!.data).toMatchObject({ actionName: 'LOOKUP', input: { term: 'parley' } });
    expect(run.events[2]!.data).toMatchObject({ actionName: 'LOOKUP', success: true });
    expect(JSON.stringify(run.events[2]!.data)).toContain('found parley');
    expect(run.events[3]!.data).toMatchObject({ status: 'completed' });
    expect(String(run.events[3]!.data.text)).toContain('found parley');
  });

  it('a failed tool call counts as an error of the run', async () => {
    const run = await eliza.runs.getRun(agentId as never, failedToolReply as never, channelA);
    expect(run.summary.counts).toMatchObject({ actions: 1, errors: 1 });
    expect(run.events[2]!.data).toMatchObject({ success: false, error: expect.any(String) });
  });

  it('runs.listRuns lists the replies, newest first, and filters by room', async () => {
    const all = (await eliza.runs.listRuns(agentId as never)) as unknown as {
      runs: { runId: string; status: string; roomId: string }[];
      hasMore: boolean;
    };
    expect(all.runs.map((run) => run.runId)).toEqual([plainReply, failedToolReply, toolReply]);
    expect(all.runs.every((run) => run.status === 'completed')).toBe(true);
    expect(all.hasMore).toBe(false);

    const inB = (await eliza.runs.listRuns(agentId as never, {
      roomId: channelB,
    })) as unknown as {
      runs: { runId: string }[];
    };
    expect(inB.runs.map((run) => run.runId)).toEqual([plainReply]);

    const paged = (await eliza.runs.listRuns(agentId as never, { limit: 2 })) as unknown as {
      runs: { runId: string }[];
      hasMore: boolean;
    };
    expect(paged.runs.map((run) => run.runId)).toEqual([plainReply, failedToolReply]);
    expect(paged.hasMore).toBe(true);

    const running = (await eliza.runs.listRuns(agentId as never, {
      status: 'started',
    })) as unknown as {
      runs: unknown[];
    };
    expect(running.runs).toEqual([]);
  });

  it('a limit above the maximum is clamped, not refused', async () => {
    const result = (await eliza.runs.listRuns(agentId as never, { limit: 100_000 })) as unknown as {
      runs: unknown[];
    };
    expect(result.runs).toHaveLength(3);
  });

  it("another agent has no runs, and cannot read this agent's", async () => {
    const other = (await eliza.runs.listRuns(otherAgentId as never)) as unknown as {
      runs: unknown[];
    };
    expect(other.runs).toEqual([]);
    expect(await statusOf(eliza.runs.getRun(otherAgentId as never, toolReply as never))).toBe(404);
  });

  it('bad input is a clear 4xx, and the key is needed', async () => {
    const keyless = new ElizaClient({ baseUrl: running.url });
    const statuses = await Promise.all([
      statusOf(eliza.runs.getRun(agentId as never, randomUUID() as never)),
      statusOf(eliza.runs.getRun(agentId as never, 'nope' as never)),
      statusOf(eliza.runs.getRun(agentId as never, toolReply as never, channelB as never)),
      statusOf(eliza.runs.getRun(agentId as never, toolReply as never, 'x' as never)),
      statusOf(eliza.runs.listRuns(randomUUID() as never)),
      statusOf(eliza.runs.listRuns(agentId as never, { limit: 0 })),
      statusOf(eliza.runs.listRuns(agentId as never, { status: 'bogus' as never })),
      statusOf(eliza.runs.listRuns(agentId as never, { from: -5 })),
      statusOf(keyless.runs.listRuns(agentId as never)),
      statusOf(keyless.runs.getRun(agentId as never, toolReply as never)),
    ]);
    expect(statuses).toEqual([404, 400, 404, 400, 404, 400, 400, 400, 401, 401]);
  });
});
