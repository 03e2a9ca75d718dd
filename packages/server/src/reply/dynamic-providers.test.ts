import { defineProvider } from '@parley/plugin-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  answerFromResults,
  startLoopServer,
  toolResultsOf,
  weatherAction,
  type LoopFixture,
} from '../../test/agent-loop-fixture';
import type { ModelRequest } from '../models/model-provider';

const FACT = 'The wifi password of the Lisbon office is TEAL-42.';

/** An elizaOS response document that asks for `providers` (as elizaOS's message template has models write). */
const askingFor = (providers: string) =>
  `<response><thought>I should look this up</thought><actions>REPLY</actions><providers>${providers}</providers><text>Let me check.</text></response>`;

/** Whether a request carries what the handbook provider said (as a tool result or anywhere else). */
const sawFact = (request: ModelRequest) =>
  request.messages.some((message) => message.content.includes(FACT));

/**
 * Dynamic providers, which elizaOS runs only when the model names them (`@elizaos/plugin-knowledge`'s KNOWLEDGE
 * is one): offered as the READ_CONTEXT action, natively and through a response document's `<providers>`.
 */
describe('dynamic providers, read when the model asks', () => {
  let loop: LoopFixture;
  const reads = { HANDBOOK: 0, SECRET: 0 };

  beforeAll(async () => {
    loop = await startLoopServer((calls) => [weatherAction(calls)], {
      providers: [
        defineProvider({
          name: 'HANDBOOK',
          description: 'the office handbook',
          dynamic: true,
          get: () => {
            reads.HANDBOOK += 1;
            return { text: FACT };
          },
        }),
        defineProvider({
          name: 'SECRET',
          dynamic: true,
          private: true,
          get: () => {
            reads.SECRET += 1;
            return { text: 'private' };
          },
        }),
      ],
    });
  });
  afterAll(() => loop.test[Symbol.asyncDispose]());
  beforeEach(() => {
    loop.model.callsTools = true;
    reads.HANDBOOK = 0;
    reads.SECRET = 0;
  });

  it('is not run unless asked for, and only the public ones are offered', async () => {
    loop.model.behaviour = { reply: 'Hello.', plain: true };
    const body = await loop.sync(loop.channel(), 'hi');
    expect(body.agentResponse.text).toBe('Hello.');
    expect(reads).toEqual({ HANDBOOK: 0, SECRET: 0 });
    const tool = loop.model.requests.at(-1)!.tools!.find((entry) => entry.name === 'READ_CONTEXT')!;
    expect(tool.description).toContain('HANDBOOK (the office handbook)');
    expect(JSON.stringify(tool.inputSchema)).not.toContain('SECRET');
  });

  it('a response document’s <providers> reads them once, and the model answers with what they said', async () => {
    loop.model.behaviour = {
      plain: true,
      // A model trained on elizaOS's template lists the providers in every answer: they are read once.
      reply: (request) =>
        toolResultsOf(request).length > 0
          ? `<response><actions>REPLY</actions><providers>HANDBOOK</providers><text>${answerFromResults(request)}</text></response>`
          : askingFor('HANDBOOK, SECRET, NOPE'),
    };
    const question = `What is the wifi password? (${Math.random()})`;
    const body = await loop.sync(loop.channel(), question);
    expect(body.success).toBe(true);
    expect(body.agentResponse.text).toContain('TEAL-42');
    expect(reads).toEqual({ HANDBOOK: 1, SECRET: 0 });
    const requests = loop.model.requests.filter((request) =>
      request.messages.some((message) => message.content === question),
    );
    expect(requests).toHaveLength(2);
    expect(sawFact(requests[0]!)).toBe(false);
    expect(sawFact(requests[1]!)).toBe(true);
    expect(body.agentResponse.toolCalls).toEqual([
      expect.objectContaining({ toolName: 'READ_CONTEXT', input: { providers: ['HANDBOOK'] } }),
    ]);
  });

  it('a model calling tools natively reads them through READ_CONTEXT; a private or unknown one is refused', async () => {
    let asked = ['HANDBOOK'];
    loop.model.behaviour = {
      plain: true,
      toolCalls: (request) =>
        request.messages.at(-1)?.role === 'user'
          ? [
              {
                toolCallId: 'call_ctx',
                toolName: 'READ_CONTEXT',
                input: JSON.stringify({ providers: asked }),
              },
            ]
          : undefined,
      reply: answerFromResults,
    };
    const body = await loop.sync(loop.channel(), 'What is the wifi password?');
    expect(body.agentResponse.text).toContain('TEAL-42');
    expect(reads.HANDBOOK).toBe(1);

    asked = ['SECRET'];
    const refused = await loop.sync(loop.channel(), 'And the secret?');
    expect(refused.agentResponse.text).toMatch(/Invalid arguments/);
    asked = ['NOPE'];
    await loop.sync(loop.channel(), 'And nope?');
    expect(reads).toEqual({ HANDBOOK: 1, SECRET: 0 });
  });
});
