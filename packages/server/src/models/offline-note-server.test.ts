import { randomUUID } from 'node:crypto';
import { syncModeResponseSchema } from '@parley/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';
import { OFFLINE_NOTE } from './eliza/offline-note';

// The default model, asked over HTTP for more than it can do, says once per channel what it is and which
// settings change it; conversation gets no note.
describe('the offline model says what it is, once per channel', () => {
  let test: TestServer;

  beforeAll(async () => {
    test = await startTestServer();
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  const ask = async (channelId: string, text: string) => {
    const response = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text, entityId: 'user-1', mode: 'sync' }),
    });
    expect(response.status).toBe(200);
    return syncModeResponseSchema.parse(await response.json()).agentResponse.text;
  };

  it('names the settings the first time it is asked for work, not the second, and again in another channel', async () => {
    const channelId = randomUUID();
    expect(await ask(channelId, 'I feel tired')).not.toContain(OFFLINE_NOTE);
    const first = await ask(channelId, 'Write me a poem about the sea');
    expect(first).toContain(OFFLINE_NOTE);
    expect(first).toContain('MODEL_PROVIDER=openai');
    // The note is stored with the reply: the next request in the channel sees it in the history.
    expect(await ask(channelId, 'Summarise the news for me')).not.toContain(OFFLINE_NOTE);
    expect(await ask(randomUUID(), 'What is the capital of France?')).toContain(OFFLINE_NOTE);
  });
});
