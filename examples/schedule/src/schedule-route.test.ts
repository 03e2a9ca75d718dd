import type { AgentRuntime, RouteRequest } from '@parley/plugin-sdk';
import {
  recordResponse,
  runPluginTests,
  startTestServer,
  type TestServer,
} from '@parley/plugin-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schedulePlugin } from './schedule-plugin';
import { scheduleRoute } from './schedule-route';

const CHANNEL = '3f2e1d0c-9b8a-4f7e-8d6c-5b4a39281706';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(schedulePlugin);
});
afterAll(() => server?.stop());

function schedule(body: unknown) {
  return fetch(`${server.url}/schedule`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('POST /schedule', () => {
  it('answers 200 and the agent posts the message at sendAt, not before', async () => {
    const channelId = crypto.randomUUID();
    const sendAt = new Date(Date.now() + 1500);
    const response = await schedule({
      channelId,
      message: 'Stand-up in 5',
      sendAt: sendAt.toISOString(),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      success: true,
      message: `Message scheduled for ${sendAt.toISOString()}`,
      scheduledId: expect.any(String),
      sendAt: sendAt.toISOString(),
    });
    expect(await server.listMessages(channelId)).toEqual([]);

    await expect
      .poll(() => server.listMessages(channelId), { timeout: 10_000, interval: 100 })
      .toHaveLength(1);
    const [posted] = await server.listMessages(channelId);
    expect(posted).toMatchObject({
      content: 'Stand-up in 5',
      author_id: server.runtime.agentId,
      metadata: { scheduledFor: sendAt.toISOString() },
    });
    expect(new Date(posted!.created_at).getTime()).toBeGreaterThanOrEqual(sendAt.getTime());
  });

  it.each([
    ['in the past', { sendAt: '2000-01-01T00:00:00Z' }],
    ['now', { sendAt: new Date().toISOString() }],
    ['not a date', { sendAt: 'next tuesday-ish' }],
    ['a day the calendar does not have (2100-02-30)', { sendAt: '2100-02-30' }],
    ['2100-02-30T00:00:00Z', { sendAt: '2100-02-30T00:00:00Z' }],
    ['missing', { sendAt: undefined }],
    ['a boolean', { sendAt: true }],
  ])('answers 400 with an error when sendAt is %s', async (_label, override) => {
    const response = await schedule({ channelId: CHANNEL, message: 'hi', ...override });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: expect.any(String) });
  });

  it.each([
    ['channelId is not a UUID', { channelId: 'general' }],
    ['channelId is missing', { channelId: undefined }],
    ['message is missing', { message: undefined }],
    ['message is blank', { message: '  ' }],
  ])('answers 400 when %s', async (_label, override) => {
    const future = new Date(Date.now() + 60_000).toISOString();
    const response = await schedule({
      channelId: CHANNEL,
      message: 'hi',
      sendAt: future,
      ...override,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ success: false, error: expect.any(String) });
  });

  it('answers 400 when the server refuses the message (text over its length limit)', async () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    const response = await schedule({
      channelId: CHANNEL,
      message: 'x'.repeat(100_001),
      sendAt: future,
    });
    expect(response.status).toBe(400);
  });

  it('answers 500 without internal detail when scheduling fails', async () => {
    const { response, written } = recordResponse();
    const runtime = {
      agentId: '00000000-0000-4000-8000-000000000009',
      character: { name: 'Broken' },
      getSetting: () => undefined,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      scheduleMessage: () => Promise.reject(new Error('connection refused 10.1.2.3:5432')),
    } as unknown as AgentRuntime;
    const request: RouteRequest = {
      method: 'POST',
      path: '/schedule',
      headers: {},
      body: {
        channelId: CHANNEL,
        message: 'hi',
        sendAt: new Date(Date.now() + 60_000).toISOString(),
      },
      rawBody: new Uint8Array(),
      params: {},
      query: {},
    };

    await scheduleRoute.handler!(request, response, runtime);

    expect(written).toEqual({
      headers: {},
      status: 500,
      body: { success: false, error: 'Failed to schedule the message' },
    });
  });
});

describe('the plugin’s own suites', () => {
  it('pass against a live server', async () => {
    const report = await runPluginTests(schedulePlugin);
    expect(report.results.filter((result) => !result.ok)).toEqual([]);
    expect(report.passed).toBe(2);
  });
});
