import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  answerFromResults,
  startLoopServer,
  toolResultsOf,
  weatherAction,
  type LoopFixture,
} from '../../test/agent-loop-fixture';
import type { ModelRequest } from '../models/model-provider';

/** An elizaOS response document naming `actions`, with `params` (already XML) and a text. */
const responseDocument = (actions: string, params = '', text = 'On it.') =>
  `<response><thought>the user asked</thought><actions>${actions}</actions>${params}<text>${text}</text></response>`;

/** Answers `first` when the user has just spoken, then quotes the results it was given. */
const firstThen = (first: string) => (request: ModelRequest) =>
  request.messages.at(-1)?.role === 'user' ? first : answerFromResults(request);

/**
 * A model offered native tools that answers in elizaOS's XML instead (`<response><actions>…`), as models
 * prompted by elizaOS characters do: the named actions run through the same gates as native calls, or the reply
 * says why not; never an empty "ignored" reply.
 */
describe('elizaOS XML actions from a model offered native tools', () => {
  let loop: LoopFixture;

  beforeAll(async () => {
    loop = await startLoopServer(
      // Rome needs a person's approval; any other city does not.
      (calls) => [
        weatherAction(calls, {
          needsApproval: (input: Record<string, unknown>) => input.city === 'Rome',
        }),
      ],
      {
        // One step with tools, then the model is asked to answer without them.
        characters: [{ name: 'Eliza', settings: { AGENT_MAX_STEPS: '1' } }],
        approvals: { timeoutMs: 60_000, sweepMs: 100 },
      },
    );
  });
  afterAll(() => loop.test[Symbol.asyncDispose]());
  beforeEach(() => {
    loop.model.callsTools = true;
    loop.calls.length = 0;
  });

  it('runs the action the document names, with its params, and the model answers from the result', async () => {
    loop.model.behaviour = {
      plain: true,
      reply: firstThen(
        responseDocument(
          'REPLY,GET_WEATHER',
          '<params><GET_WEATHER><city>Paris</city></GET_WEATHER></params>',
        ),
      ),
    };
    const body = await loop.sync(loop.channel(), 'What is the weather in Paris?');
    expect(body.success).toBe(true);
    expect(loop.calls.map((call) => [call.name, call.parameters])).toEqual([
      ['GET_WEATHER', { city: 'Paris' }],
    ]);
    expect(body.agentResponse.toolCalls).toHaveLength(1);
    expect(body.agentResponse.toolCalls![0]).toMatchObject({ toolName: 'GET_WEATHER' });
    expect(body.agentResponse.text).toContain('Sunny in Paris, 21 °C');
    expect(body.agentResponse.actions).toEqual(['GET_WEATHER', 'REPLY']);
    // The tools were offered natively in the step that answered in XML.
    expect(loop.model.requests.at(-2)?.tools?.map((tool) => tool.name)).toEqual(['GET_WEATHER']);
  });

  it('params that fail the action’s schema are refused before the handler, and the model is told', async () => {
    loop.model.behaviour = {
      plain: true,
      reply: firstThen(
        responseDocument(
          'GET_WEATHER',
          '<params><GET_WEATHER><town>Paris</town></GET_WEATHER></params>',
        ),
      ),
    };
    const body = await loop.sync(loop.channel(), 'Weather?');
    expect(body.success).toBe(true);
    expect(loop.calls).toHaveLength(0);
    expect(body.agentResponse.toolCalls![0]!.error).toBeDefined();
    expect(toolResultsOf(loop.model.requests.at(-1)!).join(' ')).toMatch(/city/);
  });

  it('an action that needs approval waits for it like a native call, then runs', async () => {
    loop.model.behaviour = {
      plain: true,
      reply: firstThen(
        responseDocument(
          'GET_WEATHER',
          '<params><GET_WEATHER><city>Rome</city></GET_WEATHER></params>',
        ),
      ),
    };
    const channelId = loop.channel();
    const response = await loop.send(channelId, { text: 'Weather in Rome?', mode: 'sync' });
    expect(response.status).toBe(202);
    const paused = (await response.json()) as {
      replyId: string;
      awaitingApproval: { toolCallId: string; toolName: string; input: unknown }[];
    };
    expect(paused.awaitingApproval).toEqual([
      expect.objectContaining({ toolName: 'GET_WEATHER', input: { city: 'Rome' } }),
    ]);
    expect(loop.calls).toHaveLength(0);
    const decided = await fetch(
      `${loop.test.url}/api/messaging/replies/${paused.replyId}/approvals`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          toolCallId: paused.awaitingApproval[0]!.toolCallId,
          approved: true,
        }),
      },
    );
    expect(decided.status).toBe(202);
    const events = await (
      await fetch(`${loop.test.url}/api/messaging/replies/${paused.replyId}/events`)
    ).text();
    expect(events).toContain('Sunny in Rome');
    expect(loop.calls.map((call) => call.parameters)).toEqual([{ city: 'Rome' }]);
  });

  it('an action the agent does not have is an error result the model reads, not silence', async () => {
    loop.model.behaviour = { plain: true, reply: firstThen(responseDocument('LAUNCH_ROCKET')) };
    const body = await loop.sync(loop.channel(), 'Launch it');
    expect(body.success).toBe(true);
    expect(body.agentResponse.toolCalls![0]).toMatchObject({
      toolName: 'LAUNCH_ROCKET',
      error: 'Unknown tool LAUNCH_ROCKET',
    });
    expect(body.agentResponse.text).toContain('Unknown tool LAUNCH_ROCKET');
  });

  it('an action named after the step bound is not run, and the reply says so instead of going silent', async () => {
    // The model names the action in every answer, the last one (asked without tools) included.
    loop.model.behaviour = {
      plain: true,
      reply: () =>
        responseDocument(
          'GET_WEATHER',
          '<params><GET_WEATHER><city>Oslo</city></GET_WEATHER></params>',
        ),
    };
    const body = await loop.sync(loop.channel(), 'Weather in Oslo, again and again');
    expect(body.success).toBe(true);
    // Once, within the bound; not a second time.
    expect(loop.calls.map((call) => call.name)).toEqual(['GET_WEATHER']);
    expect(body.agentResponse.text).toContain(
      '(GET_WEATHER was not run: this reply reached its bound of 1 steps)',
    );
    expect(body.agentResponse.actions).toContain('REPLY');
  });

  it('plain text that only mentions the protocol runs nothing', async () => {
    loop.model.behaviour = {
      plain: true,
      reply: () => `You could write ${responseDocument('GET_WEATHER')} if you were a model.`,
    };
    const body = await loop.sync(loop.channel(), 'How does the protocol look?');
    expect(body.success).toBe(true);
    expect(loop.calls).toHaveLength(0);
    expect(body.agentResponse.toolCalls ?? []).toHaveLength(0);
  });
});
