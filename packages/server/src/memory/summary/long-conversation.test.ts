import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../../test/databases';
import { startTestServer, type TestServer } from '../../../test/test-server';
import { createOpenAICompatibleModel } from '../../models';
import {
  startFakeOpenAIServer,
  type FakeChatMessage,
  type FakeOpenAIServer,
} from '../../models/testing/fake-openai-server';
import { estimateTokens } from './token-estimate';

const BUDGET = 2_000;
const FIRST = 'Remember this: my launch code is ZEBRA-4417.';
const SUMMARY_HEADING = '# Earlier in this conversation';

const text = (message: FakeChatMessage) =>
  typeof message.content === 'string' ? message.content : '';
const isSummaryRequest = (messages: FakeChatMessage[]) =>
  text(messages[0]!).includes('running summary of a long conversation');

/**
 * A fake summarising model: it keeps the summary so far and adds the first of the new turns, so a summary made
 * incrementally still names the first message only if each update was given the previous one.
 */
function fakeReply(messages: FakeChatMessage[]): string {
  if (!isSummaryRequest(messages)) {
    return '<response><thought>t</thought><actions>REPLY</actions><text>Noted.</text></response>';
  }
  const prompt = text(messages[1]!);
  const previous = /Summary so far:\n([\s\S]*?)\n\nNew turns:/.exec(prompt)?.[1] ?? '';
  const firstNew = /New turns:\n(.*)/.exec(prompt)?.[1] ?? '';
  return previous === '(none yet)'
    ? `It began with ${firstNew}`
    : `${previous} Then: ${firstNew.slice(0, 40)}`;
}

/** Tokens of a chat request's messages, counted as the server counts them. */
const promptTokens = (messages: FakeChatMessage[]) =>
  messages.reduce((sum, message) => sum + estimateTokens(text(message)) + 4, 0);

describe('long conversations keep to the prompt budget with a running summary', async () => {
  const kinds = await databaseKinds();
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of cleanup.reverse()) await close();
  });

  async function setUp(summary: 'model' | 'extractive', create: () => Promise<TestDatabase>) {
    const bodies: { messages: FakeChatMessage[] }[] = [];
    const upstream: FakeOpenAIServer = await startFakeOpenAIServer({
      reply: fakeReply,
      onRequest: ({ body }) => bodies.push(body as { messages: FakeChatMessage[] }),
    });
    cleanup.push(() => upstream.close());
    const model = createOpenAICompatibleModel({
      baseUrl: upstream.url,
      model: 'fake',
      timeoutMs: 30_000,
    });
    const test: TestServer = await startTestServer(
      { model, rateLimit: false, conversation: { promptTokenBudget: BUDGET, summary } },
      await create(),
    );
    cleanup.push(async () => {
      await test[Symbol.asyncDispose]();
    });
    return { test, bodies };
  }

  const person = randomUUID();
  async function fill(test: TestServer, channelId: string, count: number, from: number) {
    for (let index = from; index < from + count; index += 1) {
      const response = await fetch(`${test.url}/api/messaging/submit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          channel_id: channelId,
          author_id: person,
          content:
            index === 0 ? FIRST : `Message ${index}: the weather is mild and nothing happens.`,
          source_type: 'user',
          metadata: { agentName: 'Ada' },
        }),
      });
      expect(response.status).toBe(201);
    }
  }
  const ask = async (test: TestServer, channelId: string, question: string) => {
    const response = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: question, entityId: person, mode: 'sync' }),
    });
    expect(response.status).toBe(200);
  };
  const chats = (bodies: { messages: FakeChatMessage[] }[]) =>
    bodies.filter((body) => !isSummaryRequest(body.messages));

  for (const kind of kinds) {
    it.skipIf(kind.skip)(
      `${kind.name}: a 500-message channel's prompt stays within budget and its model summary names the first message, updated incrementally`,
      async () => {
        const { test, bodies } = await setUp('model', kind.create);
        const channelId = randomUUID();
        await fill(test, channelId, 499, 0);
        await ask(test, channelId, 'What was my launch code?');
        const chat = chats(bodies).at(-1)!.messages;
        expect(promptTokens(chat)).toBeLessThanOrEqual(BUDGET);
        const system = text(chat[0]!);
        expect(system).toContain(SUMMARY_HEADING);
        expect(system).toContain('ZEBRA-4417');
        // The first message itself is long out of the window: only the summary carries it.
        expect(chat.slice(1).some((message) => text(message).includes('ZEBRA-4417'))).toBe(false);

        // Incremental: later updates get the previous summary and only the turns newly out of the window.
        const before = bodies.length;
        await fill(test, channelId, 40, 499);
        await ask(test, channelId, 'And now?');
        const later = bodies.slice(before).filter((body) => isSummaryRequest(body.messages));
        expect(later.length).toBeGreaterThan(0);
        for (const body of later) {
          const prompt = text(body.messages[1]!);
          expect(prompt).toMatch(/Summary so far:\nIt began with .*ZEBRA-4417/);
          expect(prompt.split('New turns:')[1]).not.toContain('ZEBRA-4417');
        }
        const last = chats(bodies).at(-1)!.messages;
        expect(promptTokens(last)).toBeLessThanOrEqual(BUDGET);
        expect(text(last[0]!)).toContain('ZEBRA-4417');
      },
      180_000,
    );

    it.skipIf(kind.skip)(
      `${kind.name}: a conversation going on updates its summary every few replies, not after each one`,
      async () => {
        const { test, bodies } = await setUp('model', kind.create);
        const channelId = randomUUID();
        await fill(test, channelId, 60, 0);
        await ask(test, channelId, 'What was my launch code?');
        const summaries = () => bodies.filter((body) => isSummaryRequest(body.messages)).length;
        // The first reply caught the summary up; from here each reply moves the window two turns on.
        await expect.poll(summaries).toBeGreaterThan(0);
        const before = summaries();
        for (let turn = 0; turn < 12; turn += 1) await ask(test, channelId, `Turn ${turn}?`);
        // Twelve replies move the window 24 turns: a summary update after each (12) would be the old cost. With the
        // low and high water marks (60% and 85% of a 20-turn window) an update takes every 5 turns on: about 5.
        await expect.poll(() => summaries() - before).toBeGreaterThan(0);
        expect(summaries() - before).toBeLessThanOrEqual(6);
        // Each turn is folded in once, in order: no update is given a turn an earlier one covered, none is skipped.
        const folded = bodies
          .filter((body) => isSummaryRequest(body.messages))
          .flatMap((body) => text(body.messages[1]!).split('New turns:\n')[1]!.split('\n'))
          .map((line) => /(Message \d+|Turn \d+)/.exec(line)?.[1])
          .filter((turn) => turn !== undefined);
        expect(new Set(folded).size).toBe(folded.length);
        const asked = folded
          .filter((turn) => turn.startsWith('Turn '))
          .map((turn) => Number(turn.slice(5)));
        expect(asked).toEqual(asked.map((_, index) => index));
        // And only turns out of the window (its newest 60% stay whole): an update made after the reply to turn k folds
        // no turn after k - 6 (each turn is a question and its answer; the window holds the last 20 messages).
        bodies.forEach((body, index) => {
          if (!isSummaryRequest(body.messages)) return;
          const before = bodies
            .slice(0, index)
            .reverse()
            .find((earlier) => !isSummaryRequest(earlier.messages));
          const newest = /Turn (\d+)\?/.exec(
            text(before?.messages.at(-1) ?? { role: 'user', content: '' }),
          )?.[1];
          if (newest === undefined) return;
          const lines = text(body.messages[1]!).split('New turns:\n')[1]!.split('\n');
          for (const line of lines) {
            const turn = /Turn (\d+)\?/.exec(line)?.[1];
            if (turn !== undefined) expect(Number(turn)).toBeLessThanOrEqual(Number(newest) - 5);
          }
        });
        for (const chat of chats(bodies).slice(-12)) {
          expect(promptTokens(chat.messages)).toBeLessThanOrEqual(BUDGET);
          expect(text(chat.messages[0]!)).toContain('ZEBRA-4417');
        }
      },
      180_000,
    );

    it.skipIf(kind.skip)(
      `${kind.name}: the extractive summary (the offline model's) keeps the first message too`,
      async () => {
        const { test, bodies } = await setUp('extractive', kind.create);
        const channelId = randomUUID();
        await fill(test, channelId, 499, 0);
        await ask(test, channelId, 'What was my launch code?');
        expect(bodies.filter((body) => isSummaryRequest(body.messages))).toHaveLength(0);
        const chat = chats(bodies).at(-1)!.messages;
        expect(promptTokens(chat)).toBeLessThanOrEqual(BUDGET);
        expect(text(chat[0]!)).toContain(`Ada: ${FIRST}`);
      },
      180_000,
    );
  }
});
