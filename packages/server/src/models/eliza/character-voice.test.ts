import { randomUUID } from 'node:crypto';
import { syncModeResponseSchema } from '@parley/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/test-server';
import { createElizaModel } from '../eliza-model';
import type { ModelCharacter, ModelMessage } from '../model-provider';
import { DOCTOR_SCRIPT } from './doctor-script';
import { OFFLINE_NOTE } from './offline-note';

// The offline model speaking as two very different characters, through its public stream and through a server.
const ADA = {
  name: 'Ada',
  system: 'You are Ada, a concise engineering assistant.',
  bio: ['Ada reviews code and explains build failures in a sentence or two.'],
};

const REED = {
  name: 'Captain Reed',
  system: 'You are Captain Reed - a retired sea captain who tells tales of the northern passage.',
  bio: 'Sailed the northern passage for thirty years.',
  messageExamples: [
    [
      { name: '{{user1}}', content: { text: 'Hello there!' } },
      { name: 'Captain Reed', content: { text: 'Ahoy, {{user1}}! Pull up a crate & sit.' } },
    ],
    [
      { user: '{{user1}}', content: { text: 'What was the worst storm you saw?' } },
      {
        user: '{{name}}',
        content: { text: 'The winter of the <b>long</b> night: three masts gone by dawn.' },
      },
    ],
  ],
  postExamples: ['The sea keeps what it takes.', 'Never trust a calm harbour.'],
};

const FORMAT =
  /^<response><thought>([^<]+)<\/thought><actions>REPLY<\/actions><text>([^<]+)<\/text><\/response>$/;

async function answer(messages: ModelMessage[], character?: ModelCharacter & { name: string }) {
  const chunks: string[] = [];
  const request = { messages, agentName: character?.name ?? 'Eliza', character };
  for await (const part of createElizaModel().stream(request)) {
    if (part.type === 'text-delta') chunks.push(part.delta);
  }
  const text = FORMAT.exec(chunks.join(''))?.[2];
  if (text === undefined) throw new Error(`not the action-aware format: ${chunks.join('')}`);
  return text;
}

const user = (content: string): ModelMessage => ({ role: 'user', content });
const agent = (content: string): ModelMessage => ({ role: 'assistant', content });
const DOCTOR_GREETINGS = DOCTOR_SCRIPT.keywords
  .find((keyword) => keyword.words.includes('hello'))!
  .rules.flatMap((rule) => rule.replies);

describe('the offline model in a character’s voice', () => {
  it('greets as Ada, with her name and what she is, not as DOCTOR', async () => {
    for (const greeting of ['Hello', 'hi there', 'Good morning!', 'Hey Ada']) {
      const text = await answer([user(greeting)], ADA);
      expect(text).toBe("Hello! I'm Ada, a concise engineering assistant. What can I do for you?");
      expect(text).not.toMatch(/How do you do/);
    }
    // Without a character, the script's greeting as before.
    expect(DOCTOR_GREETINGS.map((line) => line.replace('{name}', 'Eliza'))).toContain(
      await answer([user('Hello')]),
    );
  });

  it('greets as Captain Reed with his own example line, placeholders filled and markup left out', async () => {
    const text = await answer([user('hello!')], REED);
    expect(text).toBe('Ahoy, you! Pull up a crate and sit.');
    // A message like another example gets that example's answer.
    expect(await answer([user('what was the worst storm you ever saw')], REED)).toBe(
      'The winter of the long night: three masts gone by dawn.',
    );
  });

  it('tells who it is from its system prompt and bio', async () => {
    expect(await answer([user('Who are you?')], ADA)).toBe(
      "I'm Ada, a concise engineering assistant. Ada reviews code and explains build failures in a sentence or two.",
    );
    expect(await answer([user('Tell me about yourself')], REED)).toBe(
      "I'm Captain Reed, a retired sea captain who tells tales of the northern passage. Sailed the northern passage for thirty years.",
    );
  });

  it('says once what it cannot do, in its own words first', async () => {
    const first = await answer([user('What can you do?')], ADA);
    expect(first.startsWith("I'm Ada, a concise engineering assistant.")).toBe(true);
    expect(first).toContain(OFFLINE_NOTE);
    expect(first.split(OFFLINE_NOTE)).toHaveLength(2);
    const again = await answer(
      [user('What can you do?'), agent(first), user('What can you do?')],
      ADA,
    );
    expect(again).not.toContain(OFFLINE_NOTE);
    // A request for work after the note was said: no second note either.
    const work = await answer(
      [user('What can you do?'), agent(first), user('Write me a release note')],
      ADA,
    );
    expect(work).not.toContain(OFFLINE_NOTE);
  });

  it('says one of its post examples where the script has nothing to key on, not one already said', async () => {
    const first = await answer([user('The weather is nice today')], REED);
    expect(REED.postExamples).toContain(first);
    const second = await answer(
      [user('The weather is nice today'), agent(first), user('The weather is nice today')],
      REED,
    );
    expect(REED.postExamples).toContain(second);
    expect(second).not.toBe(first);
    // Ada has no post examples: the script's neutral prompt.
    expect(DOCTOR_SCRIPT.fallbacks).toContain(
      await answer([user('The weather is nice today')], ADA),
    );
  });

  it('answers the same way every time, and differently for each character', async () => {
    const messages = [user('Hello')];
    expect(await answer(messages, ADA)).toBe(await answer(messages, ADA));
    expect(await answer(messages, ADA)).not.toBe(await answer(messages, REED));
  });

  it('survives a character that is not what the schema says (given in code, unvalidated)', async () => {
    const odd = {
      name: 'Odd',
      system: 42,
      bio: [null, '<script>alert(1)</script>'],
      messageExamples: [null, [{ content: null }], { examples: 'no' }],
      postExamples: 'not a list',
    } as unknown as ModelCharacter & { name: string };
    expect(await answer([user('hi')], odd)).toBe("Hello! I'm Odd. What can I do for you?");
    expect(await answer([user('who are you')], odd)).toBe("I'm Odd. alert(1).");
  });
});

describe('the offline model in a character’s voice, over HTTP', () => {
  let test: TestServer;
  beforeAll(async () => {
    test = await startTestServer({ characters: [ADA, REED] });
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  const ask = async (text: string, agentName: string) => {
    const agents = test.server.agents.summaries();
    const agentId = agents.find((each) => each.name === agentName)!.id;
    const response = await fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text, entityId: 'user-1', mode: 'sync', agentId }),
    });
    expect(response.status).toBe(200);
    return syncModeResponseSchema.parse(await response.json()).agentResponse.text;
  };

  it('each agent greets in its own voice', async () => {
    const [ada, reed] = await Promise.all([ask('Hello', 'Ada'), ask('Hello', 'Captain Reed')]);
    expect(ada).toBe("Hello! I'm Ada, a concise engineering assistant. What can I do for you?");
    expect(reed).toBe('Ahoy, you! Pull up a crate and sit.');
  });
});
