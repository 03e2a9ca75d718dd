import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  weatherThenAnswer,
  startLoopServer,
  weatherAction,
  type LoopFixture,
} from '../../../test/agent-loop-fixture';

const received: { type: string; data: Record<string, unknown> }[] = [];
const receiver = createHttpServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as (typeof received)[number]);
    response.end();
  });
});
let loop: LoopFixture;

beforeAll(async () => {
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  loop = await startLoopServer((calls) => [weatherAction(calls, { needsApproval: true })], {
    webhooks: { privateTargets: ['127.0.0.1'], pollMs: 20, retryDelaysMs: [] },
  });
  loop.model.behaviour = weatherThenAnswer();
});
afterAll(async () => {
  await loop.test[Symbol.asyncDispose]();
  receiver.close();
});

it('a paused reply reaches outbound webhooks as reply.awaiting_approval, with its requests', async () => {
  const { port } = receiver.address() as AddressInfo;
  const subscribed = await fetch(`${loop.test.url}/api/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: `http://127.0.0.1:${port}/`, events: ['reply.awaiting_approval'] }),
  });
  expect(subscribed.status).toBe(201);
  const channelId = loop.channel();
  const paused = (await (
    await loop.send(channelId, { text: 'weather?', mode: 'sync' })
  ).json()) as { replyId: string };
  await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);
  expect(received[0]).toMatchObject({
    type: 'reply.awaiting_approval',
    data: {
      channelId,
      replyId: paused.replyId,
      requests: [{ toolCallId: 'call_1', toolName: 'GET_WEATHER', input: { city: 'Paris' } }],
    },
  });
});
