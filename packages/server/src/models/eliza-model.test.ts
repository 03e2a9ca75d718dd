import { describe, expect, it } from 'vitest';
import { DOCTOR_SCRIPT } from './eliza/doctor-script';
import { createElizaModel } from './eliza-model';
import type { ModelMessage } from './model-provider';

const FORMAT =
  /^<response><thought>([^<]+)<\/thought><actions>REPLY<\/actions><text>([^<]+)<\/text><\/response>$/;

async function collect(messages: ModelMessage[], agentName = 'Eliza') {
  const chunks: string[] = [];
  for await (const part of createElizaModel().stream({ messages, agentName })) {
    if (part.type === 'text-delta') chunks.push(part.delta);
  }
  const match = FORMAT.exec(chunks.join(''));
  return { chunks, thought: match?.[1], text: match?.[2] };
}

const user = (content: string): ModelMessage => ({ role: 'user', content });

function repliesOf(word: string): readonly string[] {
  const keyword = DOCTOR_SCRIPT.keywords.find((entry) => entry.words.includes(word));
  return keyword?.rules.flatMap((rule) => rule.replies) ?? [];
}

describe('createElizaModel', () => {
  it('answers the same conversation with the same chunks every time', async () => {
    const messages = [user('I feel nobody listens to me at work')];
    const first = await collect(messages);
    const second = await collect(messages);
    expect(second.chunks).toEqual(first.chunks);
  });

  it('streams the action-aware format in pieces of 8 to 24 characters', async () => {
    const { chunks, thought, text } = await collect([user('My mother hates me.')]);
    expect(thought).toBeTruthy();
    expect(text).toBeTruthy();
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.length).toBeGreaterThanOrEqual(8);
      expect(chunk.length).toBeLessThanOrEqual(24);
    }
  });

  it('reflects the speaker’s words instead of repeating them', async () => {
    const { text } = await collect([user('I remember my first bike')]);
    expect(text).toContain('your first bike');
    expect(text).not.toContain('my first bike');
  });

  it('turns "you" into "me" and "I" into "you"', async () => {
    const { text } = await collect([user("You don't argue with me.")]);
    expect(text).toMatch(/\bI\b/);
    expect(text).toContain('argue with you');
  });

  it('answers the highest-ranked keyword of the message', async () => {
    const { text } = await collect([user('Hello. I think my computer is broken.')]);
    expect(repliesOf('computer')).toContain(text);
  });

  it('follows a decomposition for family members', async () => {
    const { text } = await collect([user('My mother hates me.')]);
    expect(text).toMatch(/family|mother/);
  });

  it('never echoes the message back', async () => {
    for (const input of [
      'I am unhappy with my job',
      'You are like my father in some ways',
      'The weather is nice today',
      'I want a new car',
    ]) {
      const { text } = await collect([user(input)]);
      expect(text?.toLowerCase()).not.toContain(input.toLowerCase());
    }
  });

  it('brings back an earlier statement when the new one has no keyword', async () => {
    const { text, thought } = await collect([
      user('My job is boring'),
      { role: 'assistant', content: 'Your job is boring?' },
      user('Sure, whatever'),
    ]);
    expect(text).toContain('your job is boring');
    expect(thought).toMatch(/earlier/);
  });

  it('does not repeat an earlier answer while the rule has another', async () => {
    // "thanks" has two answers and the turn number moves the choice by two here, so only the check for
    // earlier answers keeps it from saying the same thing again.
    const first = await collect([user('Thanks')]);
    const again = await collect([
      user('Thanks'),
      { role: 'assistant', content: first.text ?? '' },
      user('The weather is nice today'),
      { role: 'assistant', content: 'Please go on.' },
      user('Thanks'),
    ]);
    expect(repliesOf('thanks')).toContain(again.text);
    expect(again.text).not.toBe(first.text);
  });

  it('falls back to a neutral prompt with no keyword and nothing to recall', async () => {
    const { text } = await collect([user('The weather is nice today')]);
    expect(DOCTOR_SCRIPT.fallbacks).toContain(text);
  });

  it('greets when there is nothing to answer, and tells its name', async () => {
    const greeting = await collect([], 'Ada');
    expect(DOCTOR_SCRIPT.greetings.map((line) => line.replace('{name}', 'Ada'))).toContain(
      greeting.text,
    );
    const named = await collect([user('What is your name?')], 'Ada');
    expect(named.text).toContain('Ada');
  });

  it('keeps markup in an agent name out of the reply', async () => {
    const { text } = await collect([user('What is your name?')], '<b>Bob</b> & co');
    expect(text).toContain('bBob');
    expect(text).not.toMatch(/[<>&]/);
  });

  it('rejects with the abort reason when aborted before it starts', async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    controller.abort(reason);
    const stream = createElizaModel().stream({
      messages: [user('hi')],
      agentName: 'Eliza',
      signal: controller.signal,
    });
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toBe(reason);
  });

  it('stops mid-stream when aborted, even while waiting between chunks', async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const model = createElizaModel({ chunkDelayMs: 60_000 });
    const stream = model.stream({
      messages: [user('I am sad')],
      agentName: 'Eliza',
      signal: controller.signal,
    });
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    const pending = iterator.next();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
  });
});

describe('createElizaModel with tools', () => {
  const calculator = {
    name: 'CALCULATE',
    description: 'arithmetic',
    inputSchema: { type: 'object' },
  };
  const parts = async (request: Parameters<ReturnType<typeof createElizaModel>['stream']>[0]) => {
    const list = [];
    for await (const part of createElizaModel().stream(request)) list.push(part);
    return list;
  };

  it('calls an offered CALCULATE on an arithmetic request, and only then', async () => {
    const asked = await parts({
      agentName: 'Eliza',
      messages: [user('What is (3 + 4) * 2?')],
      tools: [calculator],
    });
    expect(asked).toEqual([
      {
        type: 'tool-call',
        toolCallId: expect.stringMatching(/^call_eliza_/),
        toolName: 'CALCULATE',
        input: '{"expression":"(3 + 4) * 2"}',
      },
      { type: 'finish', finishReason: 'tool-calls', usage: {} },
    ]);
    // Not offered, or not arithmetic: it talks.
    for (const request of [
      { messages: [user('What is (3 + 4) * 2?')], tools: [] },
      { messages: [user('What is love?')], tools: [calculator] },
    ]) {
      const answer = await parts({ agentName: 'Eliza', ...request });
      expect(answer.slice(0, -1).every((part) => part.type === 'text-delta')).toBe(true);
      expect(answer.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', usage: {} });
    }
  });

  it('"run NAME" calls the offered tool of that name with no arguments', async () => {
    const hello = { name: 'HELLO_WORLD', description: 'greets', inputSchema: { type: 'object' } };
    const [first] = await parts({
      agentName: 'Eliza',
      messages: [user('run hello_world')],
      tools: [hello],
    });
    expect(first).toMatchObject({ type: 'tool-call', toolName: 'HELLO_WORLD', input: '{}' });
  });

  it('answers from the results that end the conversation, failures said plainly', async () => {
    const answer = await collect([
      user('What is 1 / 0?'),
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ toolCallId: 'c', toolName: 'CALCULATE', input: '{}' }],
      },
      {
        role: 'tool',
        toolCallId: 'c',
        toolName: 'CALCULATE',
        content: '{"error":"division by zero"}',
      },
    ]);
    expect(answer.text).toBe('I tried CALCULATE, but it did not work: division by zero.');
  });
});
