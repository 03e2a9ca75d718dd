import { monitorEventLoopDelay } from 'node:perf_hooks';
import { defineAction } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopServer, type LoopFixture } from '../../test/agent-loop-fixture';
import { parseSse } from '../../test/sse';
import { createOpenAICompatibleModel } from '../models';
import {
  DONE_EVENT,
  toChunkEvent,
  toSseEvents,
  toToolCallEvents,
} from '../models/testing/chat-completion-bodies';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../models/testing/fake-openai-server';

type Script = (body: Record<string, unknown>) => readonly string[];

/** The last message a request to the upstream carries, as text. */
const lastContent = (body: Record<string, unknown>): string => {
  const content = (body.messages as { content: unknown }[]).at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
};

/** The longest the event loop stood still while `work` ran, in ms. */
async function stallDuring<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    const result = await work();
    return { result, stallMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

/**
 * A model without tool calling (`MODEL_TOOLS=false`) behind a real OpenAI-compatible HTTP server, answering in
 * elizaOS's XML protocol with markup built to make a parser rescan: the answer is read in linear time, a probe is
 * served while the reply runs, and the reply completes (never a 502 that blames the model service).
 */
describe('model output in the XML protocol, from a hostile model', () => {
  let upstream: FakeOpenAIServer;
  let loop: LoopFixture;
  let script: Script = () => toSseEvents('Hello.', 64);
  const echoed: unknown[] = [];

  beforeAll(async () => {
    upstream = await startFakeOpenAIServer({ events: (body) => script(body) });
    loop = await startLoopServer(
      () => [
        defineAction({
          name: 'ECHO',
          description: 'echoes a word',
          parameters: {
            type: 'object',
            properties: { word: { type: 'string' } },
            required: ['word'],
          },
          handler: (_runtime, _message, _state, options) => {
            echoed.push(options?.parameters);
            return { success: true, text: `echo ${String(options?.parameters?.word)}` };
          },
        }),
      ],
      {
        model: createOpenAICompatibleModel({
          baseUrl: upstream.url,
          model: 'fake',
          callsTools: false,
        }),
      },
    );
  });
  afterAll(async () => {
    await loop.test[Symbol.asyncDispose]();
    await upstream.close();
  });

  /** Answers `first` to the user's message, then says the action's result. */
  const answering = (first: string): Script => {
    return (body) =>
      lastContent(body).startsWith('[Result of action')
        ? toSseEvents(
            `<response><actions>REPLY</actions><text>Done: ${lastContent(body)}</text></response>`,
            64,
          )
        : toSseEvents(first, 4096);
  };

  it('300 KB of <params> with 100,000 unclosed tags: no stall, a probe is served, the reply completes', async () => {
    const answer = `<response><thought>x</thought><actions>ECHO</actions><params>${'<x>'.repeat(100_000)}</params><text></text></response>`;
    expect(answer.length).toBeGreaterThan(300_000);
    script = answering(answer);
    const channelId = loop.channel();
    const { result, stallMs } = await stallDuring(async () => {
      const reply = loop.send(channelId, { text: 'echo', mode: 'sync' });
      const probe = fetch(`${loop.test.url}/api/server/health`).then((response) => response.status);
      return Promise.all([reply, probe]);
    });
    const [response, probeStatus] = result;
    expect(probeStatus).toBe(200);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      agentResponse: { text: string; toolCalls: { toolName: string; error?: string }[] };
    };
    // No arguments could be read: the call fails its schema, the model is told, and it answers.
    expect(body.agentResponse.toolCalls).toEqual([
      expect.objectContaining({ toolName: 'ECHO', error: expect.stringMatching(/word/) }),
    ]);
    expect(body.agentResponse.text).toMatch(/^Done: \[Result of action ECHO\]/);
    expect(stallMs).toBeLessThan(2_000);
  });

  it('well-formed <params> next to the same flood still reach the action', async () => {
    echoed.length = 0;
    script = answering(
      `<response><actions>ECHO</actions><params><ECHO><word>hi</word></ECHO>${'<x>'.repeat(100_000)}</params></response>`,
    );
    const { result, stallMs } = await stallDuring(() => loop.sync(loop.channel(), 'echo'));
    expect(echoed).toEqual([{ word: 'hi' }]);
    expect(result.agentResponse.text).toBe('Done: [Result of action ECHO]: echo hi');
    expect(stallMs).toBeLessThan(2_000);
  });
});

/** A chunk event written by hand: a value nested `depth` deep cannot go through JSON.stringify. */
const deepObjectCallEvent = (depth: number): string =>
  `data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","created":0,"model":"fake","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"deep","type":"function","function":{"name":"ECHO","arguments":{"word":${'['.repeat(depth)}${']'.repeat(depth)}}}}]},"finish_reason":null}]}\n\n`;

interface CallRecord {
  toolCallId: string;
  toolName: string;
  input?: unknown;
  output?: { text?: string };
  error?: string;
}

/**
 * Odd tool calls from a model behind a real OpenAI-compatible HTTP server: arguments nested 100,000 deep (as
 * JSON text and as an object), one id twice in a step, a NUL in a tool name, control characters and 100 KiB in
 * an id. Each becomes a tool error the model sees or a server-made id; the reply completes, and an approval under
 * a normalised id can be decided.
 */
describe('odd tool calls from a hostile model', () => {
  let upstream: FakeOpenAIServer;
  let loop: LoopFixture;
  let calls: (body: Record<string, unknown>) => readonly string[] = () => [];
  const ran: unknown[] = [];
  /** What the model was shown of each call in its next request: ids of the call turn and of the results. */
  const seen: { calls: string[]; results: string[] }[] = [];

  beforeAll(async () => {
    upstream = await startFakeOpenAIServer({
      events: (body) => {
        const messages = body.messages as {
          role: string;
          tool_call_id?: string;
          tool_calls?: { id: string }[];
          content: unknown;
        }[];
        const results = messages.filter((message) => message.role === 'tool');
        if (results.length === 0) return calls(body);
        seen.push({
          calls: messages.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id)),
          results: results.map((message) => message.tool_call_id ?? ''),
        });
        const said = results.map((message) => lastContentOf(message.content)).join(' | ');
        return toSseEvents(`Done: ${said}`, 64);
      },
    });
    loop = await startLoopServer(
      () => [
        defineAction({
          name: 'ECHO',
          description: 'echoes a word',
          parameters: { type: 'object', properties: { word: { type: 'string' } } },
          handler: (_runtime, _message, _state, options) => {
            ran.push(options?.parameters);
            return { success: true, text: `echo ${JSON.stringify(options?.parameters?.word)}` };
          },
        }),
        defineAction({
          name: 'GUARDED',
          description: 'runs once a person approves',
          needsApproval: true,
          handler: () => ({ success: true, text: 'guarded ran' }),
        }),
      ],
      {
        model: createOpenAICompatibleModel({ baseUrl: upstream.url, model: 'fake' }),
        approvals: { timeoutMs: 60_000, sweepMs: 100 },
      },
    );
  });
  afterAll(async () => {
    await loop.test[Symbol.asyncDispose]();
    await upstream.close();
  });

  const syncReply = async (script: typeof calls) => {
    calls = script;
    ran.length = 0;
    seen.length = 0;
    const response = await loop.send(loop.channel(), { text: 'go', mode: 'sync' });
    return {
      status: response.status,
      body: (await response.json()) as {
        replyId: string;
        agentResponse: { text: string; toolCalls: CallRecord[] };
        awaitingApproval?: { toolCallId: string }[];
      },
    };
  };

  it('arguments nested 100,000 deep as JSON text: a tool error the model sees, the reply completes', async () => {
    const depth = 100_000;
    const { status, body } = await syncReply(() =>
      toToolCallEvents([
        {
          id: 'deep',
          name: 'ECHO',
          arguments: `{"word":${'['.repeat(depth)}${']'.repeat(depth)}}`,
        },
      ]),
    );
    expect(status).toBe(200);
    expect(ran).toEqual([]);
    expect(body.agentResponse.toolCalls).toEqual([
      expect.objectContaining({
        toolCallId: 'deep',
        error: expect.stringMatching(/nested deeper/),
      }),
    ]);
    expect(body.agentResponse.text).toMatch(/^Done: .*nested deeper/);
  });

  it('arguments nested 100,000 deep as an object (Ollama shape): a tool error, the reply completes', async () => {
    const { status, body } = await syncReply(() => [
      deepObjectCallEvent(100_000),
      toChunkEvent({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
      DONE_EVENT,
    ]);
    expect(status).toBe(200);
    expect(ran).toEqual([]);
    expect(body.agentResponse.toolCalls[0]!.error).toMatch(/nested deeper/);
    expect(body.agentResponse.text).toMatch(/^Done: /);
  });

  it('one id twice in a step: both run under distinct ids, and the model sees them consistently', async () => {
    const { status, body } = await syncReply(() =>
      toToolCallEvents([
        { id: 'dup', name: 'ECHO', arguments: '{"word":"a"}' },
        { id: 'dup', name: 'ECHO', arguments: '{"word":"b"}' },
      ]),
    );
    expect(status).toBe(200);
    expect(ran).toEqual([{ word: 'a' }, { word: 'b' }]);
    const ids = body.agentResponse.toolCalls.map((call) => call.toolCallId);
    expect(ids[0]).toBe('dup');
    expect(ids[1]).not.toBe('dup');
    expect(new Set(ids).size).toBe(2);
    // The model's next turn pairs each result with its call under the same (server-made) id.
    expect(seen).toEqual([{ calls: ids, results: ids }]);
    expect(body.agentResponse.text).toBe('Done: echo "a" | echo "b"');
  });

  it('a NUL in a tool name is an unknown tool; control characters in an id give a server-made id', async () => {
    const { status, body } = await syncReply(() =>
      toToolCallEvents([
        { id: 'nul', name: 'ECHO\u0000', arguments: '{"word":"x"}' },
        { id: 'call\u0001\u0007\u001b[2J', name: 'ECHO', arguments: '{"word":"y"}' },
      ]),
    );
    expect(status).toBe(200);
    const [named, odd] = body.agentResponse.toolCalls;
    expect(named!.toolCallId).toBe('nul');
    expect(named!.toolName).not.toContain('\u0000');
    expect(named!.error).toMatch(/Unknown tool/);
    expect(odd!.toolCallId).toMatch(/^call_[\w-]+$/);
    expect(odd!.output).toEqual({ text: 'echo "y"' });
    expect(ran).toEqual([{ word: 'y' }]);
    expect(body.agentResponse.text).toMatch(/^Done: .*Unknown tool.* \| echo "y"$/);
  });

  it('a 100 KiB id on a call that waits for approval: the approval is made under a short id and can be decided', async () => {
    const { status, body } = await syncReply(() =>
      toToolCallEvents([{ id: 'x'.repeat(100 * 1024), name: 'GUARDED', arguments: '{}' }]),
    );
    expect(status).toBe(202);
    const [waiting] = body.awaitingApproval!;
    expect(waiting!.toolCallId.length).toBeLessThanOrEqual(64);
    const decided = await fetch(
      `${loop.test.url}/api/messaging/replies/${body.replyId}/approvals`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ toolCallId: waiting!.toolCallId, approved: true }),
      },
    );
    expect(decided.status).toBe(202);
    const events = parseSse(
      await (await fetch(`${loop.test.url}/api/messaging/replies/${body.replyId}/events`)).text(),
    );
    const done = events.find((event) => event.event === 'done')?.data as { text: string };
    expect(done.text).toBe('Done: guarded ran');
  });
});

describe('one id in every step of a reply, from a hostile model', () => {
  let upstream: FakeOpenAIServer;
  let loop: LoopFixture;
  let ran = 0;

  beforeAll(async () => {
    // Two steps, each one call that waits for approval, both under the id `same`; then an answer.
    upstream = await startFakeOpenAIServer({
      events: (body) => {
        const results = (body.messages as { role: string }[]).filter(
          (message) => message.role === 'tool',
        ).length;
        return results < 2
          ? toToolCallEvents([{ id: 'same', name: 'GUARDED', arguments: '{}' }])
          : toSseEvents(`Done after ${results} results`, 64);
      },
    });
    loop = await startLoopServer(
      () => [
        defineAction({
          name: 'GUARDED',
          description: 'runs once a person approves',
          needsApproval: true,
          handler: () => {
            ran += 1;
            return { success: true, text: `guarded ran ${ran}` };
          },
        }),
      ],
      {
        model: createOpenAICompatibleModel({ baseUrl: upstream.url, model: 'fake' }),
        approvals: { timeoutMs: 60_000, sweepMs: 100 },
      },
    );
  });
  afterAll(async () => {
    await loop.test[Symbol.asyncDispose]();
    await upstream.close();
  });

  it("a later step's call gets its own id: both approvals are made, decided, and the reply completes", async () => {
    const response = await loop.send(loop.channel(), { text: 'go', mode: 'sync' });
    expect(response.status).toBe(202);
    const { replyId, awaitingApproval } = (await response.json()) as {
      replyId: string;
      awaitingApproval: { toolCallId: string }[];
    };
    expect(awaitingApproval.map((each) => each.toolCallId)).toEqual(['same']);
    const decide = (toolCallId: string) =>
      fetch(`${loop.test.url}/api/messaging/replies/${replyId}/approvals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ toolCallId, approved: true }),
      });
    expect((await decide('same')).status).toBe(202);
    // The second step's call waits under an id of its own: read the reply's events until its request comes.
    const stream = await fetch(`${loop.test.url}/api/messaging/replies/${replyId}/events`);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    let second: string | undefined;
    while (second === undefined) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      const seen = parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2));
      // A reply that failed or ended instead is the defect: stop reading and let the assertions say so.
      if (seen.some((event) => event.event === 'error' || event.event === 'done')) break;
      second = seen
        .filter((event) => event.event === 'approval_request')
        .map((event) => (event.data as { toolCallId: string }).toolCallId)
        .find((id) => id !== 'same');
    }
    await reader.cancel();
    expect(second).toMatch(/^call_[\w-]+$/);
    expect((await decide(second!)).status).toBe(202);
    const events = parseSse(
      await (await fetch(`${loop.test.url}/api/messaging/replies/${replyId}/events`)).text(),
    );
    const done = events.find((event) => event.event === 'done')?.data as {
      text: string;
      toolCalls: { toolCallId: string }[];
    };
    expect(done.text).toBe('Done after 2 results');
    expect(done.toolCalls.map((call) => call.toolCallId)).toEqual(['same', second]);
    expect(ran).toBe(2);
  });
});

/** A tool message's content as text. */
function lastContentOf(content: unknown): string {
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
}
