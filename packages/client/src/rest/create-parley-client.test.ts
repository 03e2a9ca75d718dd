import { describe, expect, it } from 'vitest';
import { ParleyClientError } from '../client-error';
import { hang, json, stubFetch } from '../test/stub-fetch';
import { createParleyClient } from './create-parley-client';

const channelId = '0b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c';

async function caught(promise: Promise<unknown>): Promise<ParleyClientError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ParleyClientError.isInstance(error))
    throw new Error(`expected a ParleyClientError, got ${String(error)}`);
  return error;
}

describe('createParleyClient', () => {
  it('cancelReply posts no body; 409 is a CONFLICT error', async () => {
    const replyId = '1b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c';
    const { fetch, requests } = stubFetch(
      () => json({ success: true, data: { replyId, status: 'cancelled' } }, 202),
      () => json({ success: false, error: { code: 'CONFLICT', message: 'already ended' } }, 409),
    );
    const client = createParleyClient({ baseUrl: 'http://parley.test', apiKey: 'k', fetch });
    await expect(client.cancelReply(replyId)).resolves.toEqual({ replyId, status: 'cancelled' });
    expect(requests[0]).toMatchObject({
      url: `http://parley.test/api/messaging/replies/${replyId}/cancel`,
      method: 'POST',
      headers: { 'x-api-key': 'k' },
      body: undefined,
    });
    expect(await caught(client.cancelReply(replyId))).toMatchObject({
      status: 409,
      code: 'CONFLICT',
    });
  });

  it('decideApproval posts the decision; 202 gives the data, 409 CONFLICT, 404 NOT_FOUND', async () => {
    const replyId = '1b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c';
    const refusal = (status: number, code: string) =>
      json({ success: false, error: { code, message: 'refused' } }, status);
    const { fetch, requests } = stubFetch(
      () => json({ success: true, data: { replyId, toolCallId: 'c1', status: 'denied' } }, 202),
      () => refusal(409, 'CONFLICT'),
      () => refusal(404, 'NOT_FOUND'),
      () => json({ success: true, data: { replyId, toolCallId: 'c1', status: 'maybe' } }, 202),
    );
    const client = createParleyClient({ baseUrl: 'http://parley.test', apiKey: 'k', fetch });
    const decision = { toolCallId: 'c1', approved: false, reason: 'not today' };
    await expect(client.decideApproval(replyId, decision)).resolves.toEqual({
      replyId,
      toolCallId: 'c1',
      status: 'denied',
    });
    expect(requests[0]).toMatchObject({
      url: `http://parley.test/api/messaging/replies/${replyId}/approvals`,
      method: 'POST',
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
      body: decision,
    });
    const approve = () => client.decideApproval(replyId, { toolCallId: 'c1', approved: true });
    expect(await caught(approve())).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(await caught(approve())).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await caught(approve())).toMatchObject({ code: 'INVALID_RESPONSE' });
    expect(requests[1]!.body).toEqual({ toolCallId: 'c1', approved: true });
  });

  it('reads a sync reply that paused for approval (202 with awaitingApproval) as an answer', async () => {
    const replyId = '1b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c';
    const waiting = {
      replyId,
      toolCallId: 'c1',
      toolName: 'DEPLOY',
      input: { target: 'prod' },
      expiresAt: '2030-01-01T00:00:00.000Z',
    };
    const { fetch } = stubFetch(() =>
      json(
        {
          success: true,
          userMessage: { id: 'm1', text: 'deploy' },
          agentResponse: { text: '', actions: [], toolCalls: [] },
          awaitingApproval: [waiting],
          replyId,
        },
        202,
      ),
    );
    const client = createParleyClient({ baseUrl: 'http://x', fetch });
    const reply = await client.sendMessage(channelId, {
      text: 'deploy',
      entityId: 'u',
      mode: 'sync',
    });
    expect(reply.awaitingApproval).toEqual([waiting]);
    expect(reply.replyId).toBe(replyId);
  });

  it('sends the API key and unwraps the success envelope', async () => {
    const { fetch, requests } = stubFetch(() =>
      json({ success: true, data: [{ id: 'a', name: 'Eliza' }] }),
    );
    const client = createParleyClient({ baseUrl: 'http://parley.test/', apiKey: 'k', fetch });
    await expect(client.listAgents()).resolves.toEqual([{ id: 'a', name: 'Eliza' }]);
    const { fetch: current } = stubFetch(() =>
      json({ success: true, data: { agents: [{ id: 'b', name: 'Ada', status: 'active' }] } }),
    );
    const now = createParleyClient({ baseUrl: 'http://parley.test/', fetch: current });
    await expect(now.listAgents()).resolves.toEqual([{ id: 'b', name: 'Ada' }]);
    expect(requests[0]).toMatchObject({
      url: 'http://parley.test/api/agents',
      headers: { 'x-api-key': 'k', accept: 'application/json' },
    });
  });

  it('asks a credential function before each request, so a renewed token is the one sent', async () => {
    const { fetch, requests } = stubFetch(() => json({ success: true, data: [] }));
    let token: string | undefined = 'first-token';
    const client = createParleyClient({
      baseUrl: 'http://parley.test',
      apiKey: () => token,
      fetch,
    });
    await client.listAgents();
    token = 'renewed-token';
    await client.listAgents();
    token = undefined;
    await client.listAgents();
    expect(requests.map((request) => request.headers['x-api-key'])).toEqual([
      'first-token',
      'renewed-token',
      undefined,
    ]);
  });

  it('turns the server error body into status, code, message and details', async () => {
    const { fetch } = stubFetch(() =>
      json(
        {
          success: false,
          error: { code: 'BAD_REQUEST', message: 'Invalid message: text', details: { issues: [] } },
        },
        400,
      ),
    );
    const client = createParleyClient({ baseUrl: 'http://parley.test', fetch });
    const error = await caught(client.sendMessage(channelId, { text: '', entityId: 'u' }));
    expect(error).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'Invalid message: text',
      details: { issues: [] },
      retryable: false,
    });
  });

  it('gives HTTP_ERROR for an error that is not the envelope, retryable by status', async () => {
    const { fetch } = stubFetch(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    const error = await caught(createParleyClient({ baseUrl: 'http://x', fetch }).health());
    expect(error).toMatchObject({ status: 502, code: 'HTTP_ERROR', retryable: true });
  });

  it('gives INVALID_RESPONSE when a 2xx body does not match its schema or is not JSON', async () => {
    const { fetch } = stubFetch(
      () => json({ success: true, userMessage: { id: 1, text: 'hi' } }, 202),
      () => new Response('not json', { status: 200 }),
    );
    const client = createParleyClient({ baseUrl: 'http://x', fetch });
    const mismatch = await caught(client.sendMessage(channelId, { text: 'hi', entityId: 'u' }));
    expect(mismatch).toMatchObject({ status: 202, code: 'INVALID_RESPONSE', retryable: false });
    expect(mismatch.details).toEqual([{ path: 'userMessage.id', message: expect.any(String) }]);
    await expect(caught(client.teeStatus())).resolves.toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it('gives NETWORK_ERROR (status 0, retryable) when fetch fails', async () => {
    const { fetch } = stubFetch(() => {
      throw new TypeError('fetch failed');
    });
    const error = await caught(createParleyClient({ baseUrl: 'http://x', fetch }).health());
    expect(error).toMatchObject({ status: 0, code: 'NETWORK_ERROR', retryable: true });
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it('gives TIMEOUT (status 0) when no answer comes in time', async () => {
    const { fetch } = stubFetch(hang);
    const error = await caught(
      createParleyClient({ baseUrl: 'http://x', fetch, timeout: 20 }).health(),
    );
    expect(error).toMatchObject({ status: 0, code: 'TIMEOUT', retryable: true });
  });

  it('gives ABORTED, not retryable, when the caller aborts', async () => {
    const { fetch } = stubFetch(hang);
    const controller = new AbortController();
    const pending = caught(
      createParleyClient({ baseUrl: 'http://x', fetch }).sendMessage(
        channelId,
        { text: 'hi', entityId: 'u', mode: 'sync' },
        { signal: controller.signal },
      ),
    );
    controller.abort();
    await expect(pending).resolves.toMatchObject({ status: 0, code: 'ABORTED', retryable: false });
  });

  it('posts the mode and reads sync and history answers', async () => {
    const { fetch, requests } = stubFetch(
      () =>
        json({
          success: true,
          userMessage: { id: 'm1', text: 'hi' },
          agentResponse: { text: 'Hello.', actions: ['REPLY'] },
        }),
      () => json({ success: true, data: [] }),
    );
    const client = createParleyClient({ baseUrl: 'http://x', fetch });
    const reply = await client.sendMessage(channelId, { text: 'hi', entityId: 'u', mode: 'sync' });
    expect(reply.agentResponse.text).toBe('Hello.');
    // A server older than tool calls sends no toolCalls: read as none.
    expect(reply.agentResponse.toolCalls).toEqual([]);
    expect(requests[0]).toMatchObject({
      method: 'POST',
      url: `http://x/api/messaging/channels/${channelId}/messages`,
      body: { text: 'hi', entityId: 'u', mode: 'sync' },
    });
    await client.channelMessages(channelId, { limit: 5, before: new Date(0) });
    expect(requests[1]!.url).toBe(
      `http://x/api/messaging/channels/${channelId}/messages?limit=5&before=1970-01-01T00%3A00%3A00.000Z`,
    );
  });

  it("reads a sync reply's tool calls with their outcomes", async () => {
    const toolCalls = [
      { toolCallId: 'c1', toolName: 'LOOKUP', input: { q: 'tea' }, output: { text: 'hot' } },
      { toolCallId: 'c2', toolName: 'MADE_UP', input: {}, error: 'Unknown tool MADE_UP' },
    ];
    const { fetch } = stubFetch(
      () =>
        json({
          success: true,
          userMessage: { id: 'm1', text: 'hi' },
          agentResponse: { text: 'Hot.', actions: ['LOOKUP', 'REPLY'], toolCalls },
        }),
      () =>
        json({
          success: true,
          userMessage: { id: 'm1', text: 'hi' },
          agentResponse: { text: 'Hot.', actions: ['REPLY'], toolCalls: [{ toolName: 'X' }] },
        }),
    );
    const client = createParleyClient({ baseUrl: 'http://x', fetch });
    const ask = () => client.sendMessage(channelId, { text: 'hi', entityId: 'u', mode: 'sync' });
    expect((await ask()).agentResponse.toolCalls).toEqual(toolCalls);
    await expect(ask()).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
  });
});
