import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ParleyServer } from '../create-server';
import { createLogger } from '../logger';
import type { ModelProvider } from '../models';

/**
 * A UI chat resumed on another process of the cluster: two real servers on one PostgreSQL database; the reply
 * runs on the first, `reconnectToStream` goes to the second, which does not run it and replays it once stored.
 */
const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';
const TOKEN = 'ui-chat-cluster-token';
const name = `parley_uichat_${randomUUID().replaceAll('-', '')}`;

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** The model answers once the test lets it: the reply is running on the first process while the second is asked. */
let release: () => void = () => undefined;
const released = new Promise<void>((resolve) => (release = resolve));
const gatedModel: ModelProvider = {
  name: 'gated',
  callsTools: false,
  async *stream(request) {
    const last = request.messages.at(-1);
    yield { type: 'text-delta', delta: 'first part; ' };
    await released;
    yield {
      type: 'text-delta',
      delta: `then: ${typeof last?.content === 'string' ? last.content : ''}`,
    };
    yield { type: 'finish', finishReason: 'stop' };
  },
};

const servers: ParleyServer[] = [];
const urls: string[] = [];

beforeAll(async () => {
  await adminQuery(`create database ${name}`);
  for (let i = 0; i < 2; i += 1) {
    const server = createServer({
      port: 0,
      logger: createLogger('silent'),
      env: {},
      authToken: TOKEN,
      model: gatedModel,
      database: {
        kind: 'postgres',
        url: `postgres://postgres@127.0.0.1:5432/${name}`,
        poolSize: 4,
      },
    });
    servers.push(server);
    // One at a time: both migrate the same database.
    urls.push((await server.start()).url);
  }
}, 60_000);

afterAll(async () => {
  release();
  await Promise.all(servers.map((server) => server.stop()));
  await adminQuery(`drop database if exists ${name} with (force)`);
});

const transportOf = (url: string, server: ParleyServer) =>
  new DefaultChatTransport<UIMessage>({
    api: `${url}/api/messaging/ui-chat/${server.agents.defaultAgent.agentId}`,
    headers: { 'x-api-key': TOKEN },
  });

const textParts = (message: UIMessage) =>
  message.parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('');

describe('UI chat resume across processes', () => {
  it('a reply running on one process is resumed on the other, whole, once stored; then there is nothing to resume', async () => {
    const [first, second] = [
      transportOf(urls[0]!, servers[0]!),
      transportOf(urls[1]!, servers[1]!),
    ];
    const chatId = `chat-${randomUUID()}`;
    const leaving = new AbortController();
    const question = `question ${randomUUID()}`;
    const stream = await first.sendMessages({
      trigger: 'submit-message',
      chatId,
      messageId: undefined,
      messages: [{ id: randomUUID(), role: 'user', parts: [{ type: 'text', text: question }] }],
      abortSignal: leaving.signal,
    });
    const reader = stream.getReader();
    let replyId: string | undefined;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before any text');
      if (value.type === 'start') replyId = value.messageId;
      if (value.type === 'text-delta') break;
    }
    leaving.abort();
    await reader.cancel().catch(() => undefined);

    // The second process runs nothing of this chat: its resume is answered at once and waits for the reply,
    // which the model ends only now.
    const resumed = await second.reconnectToStream({ chatId });
    expect(resumed).not.toBeNull();
    release();
    let message: UIMessage | undefined;
    for await (const built of readUIMessageStream({ stream: resumed! })) message = built;
    expect(message?.id).toBe(replyId);
    expect(textParts(message!)).toBe(`first part; then: ${question}`);
    // Ended and stored: neither process has anything to resume.
    expect(await second.reconnectToStream({ chatId })).toBeNull();
    expect(await first.reconnectToStream({ chatId })).toBeNull();
  });
});
