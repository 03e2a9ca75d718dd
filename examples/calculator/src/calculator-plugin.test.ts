import { startTestServer, type TestServer } from '@parley/plugin-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculatorPlugin } from './calculator-plugin';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(calculatorPlugin);
});
afterAll(() => server?.stop());

describe('the calculator plugin', () => {
  it('CALCULATE answers the checked expression', async () => {
    const result = await server.callAction('CALCULATE', { expression: '6 * 7' });
    expect(result).toEqual({ output: { text: '6 * 7 = 42', values: { result: 42 } }, posted: [] });
  });

  it('a bad expression or missing argument is an error the model is told, not a crash', async () => {
    expect((await server.callAction('CALCULATE', { expression: '1 / 0' })).error).toBe(
      'Cannot calculate "1 / 0": division by zero',
    );
    expect((await server.callAction('CALCULATE', {})).error).toMatch(
      /^Invalid arguments: .*expression/,
    );
    expect((await server.callAction('CALCULATE', { expression: '1', extra: true })).error).toMatch(
      /^Invalid arguments: /,
    );
  });

  it('the offline default model calls it and answers from its result, in a real conversation', async () => {
    const channelId = crypto.randomUUID();
    const response = await fetch(`${server.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'what is 12 * 7?', entityId: 'user-1', mode: 'sync' }),
    });
    const body = (await response.json()) as {
      agentResponse: { text: string; actions: string[]; toolCalls: unknown[] };
    };
    expect(body.agentResponse).toEqual({
      text: '12 * 7 = 84',
      actions: ['CALCULATE', 'REPLY'],
      toolCalls: [
        {
          toolCallId: expect.any(String),
          toolName: 'CALCULATE',
          input: { expression: '12 * 7' },
          output: { text: '12 * 7 = 84', values: { result: 84 } },
        },
      ],
    });
  });

  it('FORGET_CALCULATIONS waits for a person: the reply pauses, and goes on once approved', async () => {
    const channelId = crypto.randomUUID();
    await server.callAction('CALCULATE', { expression: '2 + 2' }, { channelId });
    const asked = await fetch(`${server.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'run FORGET_CALCULATIONS', entityId: 'user-1', mode: 'sync' }),
    });
    expect(asked.status).toBe(202);
    const paused = (await asked.json()) as {
      replyId: string;
      awaitingApproval: { toolCallId: string; toolName: string }[];
    };
    expect(paused.awaitingApproval.map((request) => request.toolName)).toEqual([
      'FORGET_CALCULATIONS',
    ]);
    const decided = await fetch(`${server.url}/api/messaging/replies/${paused.replyId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ toolCallId: paused.awaitingApproval[0]!.toolCallId, approved: true }),
    });
    expect(decided.status).toBe(202);
    const events = await (
      await fetch(`${server.url}/api/messaging/replies/${paused.replyId}/events`)
    ).text();
    expect(events).toContain('The last calculation is forgotten.');
  });

  it('the provider tells the model the last result of the channel', async () => {
    const channelId = crypto.randomUUID();
    await server.callAction('CALCULATE', { expression: '2 + 2' }, { channelId });
    const state = await server.runtime.composeState({
      entityId: 'user-1',
      roomId: channelId,
      content: { text: 'and?' },
    });
    expect(state.text).toBe('The last calculation in this conversation: 2 + 2 = 4');
    expect(state.values.lastCalculation).toBe('2 + 2 = 4');
  });
});
