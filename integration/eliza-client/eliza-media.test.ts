import { randomUUID } from 'node:crypto';
import { ApiError, ElizaClient } from '@elizaos/api-client';
import type { ModelProvider } from '@parley/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../support/start-server';

/**
 * elizaOS's `Media` attachment shape (`{id, url, contentType}`) through its own client (`@elizaos/api-client`
 * 1.7.2): a file uploaded with `media.uploadChannelMedia` and listed as Media in a user's message is read by the
 * model; an agent message carrying Media is stored and listed back.
 */
const TOKEN = 'eliza-media-token';
const AGENT = { name: 'Eliza', id: 'b850bc30-45f8-0041-a00a-83df46d8555d' };
const FILE_TEXT = `the tide table says ${randomUUID()}`;

/** What the model was shown: each request's messages, as text. */
const prompts: string[] = [];
const recordingModel: ModelProvider = {
  name: 'recording',
  callsTools: false,
  // eslint-disable-next-line @typescript-eslint/require-await
  async *stream(request) {
    prompts.push(JSON.stringify(request.messages));
    yield { type: 'text-delta', delta: 'Noted.' };
    yield { type: 'finish', finishReason: 'stop' };
  },
};

let running: TestServer;
let eliza: ElizaClient;

beforeAll(async () => {
  running = await startServer({ authToken: TOKEN, characters: [AGENT], model: recordingModel });
  eliza = new ElizaClient({ baseUrl: running.url, apiKey: TOKEN });
});
afterAll(() => running?.server.stop());

/** A new channel (an upload needs one that exists). */
async function newChannel(): Promise<string> {
  const channel = await eliza.messaging.createChannel({
    name: `media ${randomUUID()}`,
    type: 'GROUP' as never,
  });
  return channel.id;
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

describe('@elizaos/api-client 1.7.2: Media attachments', () => {
  it('a file listed as Media {id, url, contentType} is read by the model', async () => {
    const channelId = await newChannel();
    const uploaded = (await eliza.media.uploadChannelMedia(
      channelId as never,
      new File([FILE_TEXT], 'tides.txt', { type: 'text/plain' }),
    )) as unknown as { id: string; url: string; contentType: string };
    expect(uploaded).toMatchObject({
      id: expect.any(String),
      url: expect.any(String),
      contentType: expect.stringContaining('text/plain'),
    });
    const media = { id: uploaded.id, url: uploaded.url, contentType: uploaded.contentType };
    await eliza.messaging.postMessage(channelId as never, 'what does the file say?', {
      attachments: [{ ...media, title: 'tides.txt' }],
    });
    await expect
      .poll(() => prompts.some((prompt) => prompt.includes(FILE_TEXT)), { timeout: 15_000 })
      .toBe(true);
    const seen = prompts.find((prompt) => prompt.includes(FILE_TEXT))!;
    expect(seen).toContain('tides.txt');
  });

  it('Media naming a file of another channel is not read', async () => {
    const other = await newChannel();
    const secret = `other channel ${randomUUID()}`;
    const uploaded = (await eliza.media.uploadChannelMedia(
      other as never,
      new File([secret], 'other.txt', { type: 'text/plain' }),
    )) as unknown as { id: string; url: string };
    const channelId = await newChannel();
    const before = prompts.length;
    await eliza.messaging.postMessage(channelId as never, 'and this one?', {
      attachments: [{ id: uploaded.id, url: uploaded.url, contentType: 'text/plain' }],
    });
    await expect.poll(() => prompts.length, { timeout: 15_000 }).toBeGreaterThan(before);
    expect(prompts.slice(before).join('')).not.toContain(secret);
  });

  it('an agent message with Media is stored and listed back; a malformed attachment is a 400', async () => {
    const channelId = randomUUID();
    const media = { id: randomUUID(), url: 'https://example.com/a.png', contentType: 'image/png' };
    await eliza.messaging.submitMessage({
      agentId: AGENT.id as never,
      channelId: channelId,
      content: 'a picture',
      metadata: { attachments: [media] },
    });
    const { messages } = await eliza.messaging.getChannelMessages(channelId);
    expect(messages[0]!.metadata).toMatchObject({ attachments: [media] });

    const statuses = await Promise.all(
      [[{ url: 'https://example.com/x' }], [{ id: 'x' }], [{ id: 'x', url: 5 }], ['nope']].map(
        (attachments) =>
          statusOf(
            eliza.messaging.submitMessage({
              agentId: AGENT.id as never,
              channelId: channelId as never,
              content: 'bad',
              metadata: { attachments },
            } as never),
          ),
      ),
    );
    expect(statuses).toEqual([400, 400, 400, 400]);
  });
});
