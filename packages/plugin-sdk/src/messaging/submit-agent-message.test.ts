import { describe, expect, it } from 'vitest';
import type { AgentRuntime } from '../plugin/runtime';
import { ParleyClientError, submitAgentMessage } from './index';

const agentId = '6f1c4a52-8a0e-5b7a-9a51-1f2b3c4d5e6f';
const channelId = '0b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c';

function runtimeWith(settings: Record<string, string>): AgentRuntime {
  return {
    agentId,
    character: { name: 'Eliza' },
    getSetting: (key: string) => settings[key],
  } as unknown as AgentRuntime;
}

function storedFrom(body: Record<string, unknown>) {
  return {
    id: 'b3b0c2c8-1111-4a4a-9999-000000000001',
    channel_id: body.channel_id,
    server_id: body.server_id,
    author_id: body.author_id,
    author_name: 'Eliza',
    content: body.content,
    source_type: body.source_type,
    raw_message: body.raw_message,
    metadata: body.metadata,
    in_reply_to: null,
    created_at: new Date(0).toISOString(),
  };
}

/** A fetch that records the request and answers like the server's submit endpoint. */
function recordingFetch(status = 201) {
  const calls: { url: string; headers: Record<string, string>; body: Record<string, unknown> }[] =
    [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const body = JSON.parse(init?.body as string) as Record<string, unknown>;
    calls.push({ url: input as string, headers: init?.headers as Record<string, string>, body });
    const answer =
      status < 300
        ? { success: true, data: storedFrom(body) }
        : { success: false, error: { code: 'BAD_REQUEST', message: 'Invalid message' } };
    return Promise.resolve(new Response(JSON.stringify(answer), { status }));
  };
  return { calls, fetch };
}

describe('submitAgentMessage', () => {
  it('posts the SPEC agent message to SERVER_URL with the server token', async () => {
    const { calls, fetch } = recordingFetch();
    const runtime = runtimeWith({
      SERVER_URL: 'http://parley.test:4000/',
      SERVER_AUTH_TOKEN: 't0k',
    });

    const stored = await submitAgentMessage(runtime, {
      channelId,
      text: 'Build finished',
      thought: 'tell them',
      metadata: { source: 'ci', agentName: 'spoofed' },
      fetch,
    });

    expect(stored.id).toBe('b3b0c2c8-1111-4a4a-9999-000000000001');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe('http://parley.test:4000/api/messaging/submit');
    expect(calls[0]!.headers['x-api-key']).toBe('t0k');
    expect(calls[0]!.body).toEqual({
      channel_id: channelId,
      server_id: '00000000-0000-0000-0000-000000000000',
      author_id: agentId,
      content: 'Build finished',
      source_type: 'agent_response',
      raw_message: { text: 'Build finished', thought: 'tell them', actions: ['REPLY'] },
      metadata: { source: 'ci', agent_id: agentId, agentName: 'Eliza' },
    });
  });

  it('falls back to the development address and sends no key when neither is set', async () => {
    const { calls, fetch } = recordingFetch();
    await submitAgentMessage(runtimeWith({}), { channelId, text: 'hi', actions: ['NONE'], fetch });
    expect(calls[0]!.url).toBe('http://localhost:3000/api/messaging/submit');
    expect(calls[0]!.headers['x-api-key']).toBeUndefined();
    expect(calls[0]!.body.raw_message).toEqual({ text: 'hi', actions: ['NONE'] });
  });

  it('rejects with ParleyClientError carrying the status and code of a non-2xx answer', async () => {
    const { fetch } = recordingFetch(400);
    const error: unknown = await submitAgentMessage(runtimeWith({}), {
      channelId,
      text: 'hi',
      fetch,
    }).catch((caught: unknown) => caught);
    expect(ParleyClientError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, code: 'BAD_REQUEST', retryable: false });
  });
});
