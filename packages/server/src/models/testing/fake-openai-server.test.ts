import { describe, expect, it } from 'vitest';

interface ChunkEvent {
  choices: { delta: { content?: string }; finish_reason: string | null }[];
}
import { startFakeOpenAIServer } from './fake-openai-server';

function post(url: string, body: unknown) {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('startFakeOpenAIServer', () => {
  it('answers a non-streaming request with a chat.completion body', async () => {
    await using server = await startFakeOpenAIServer({
      reply: (messages) => `echo ${messages.length}`,
    });
    const response = await post(server.url, {
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'echo 1' }, finish_reason: 'stop' }],
    });
    expect(server.requests).toBe(1);
  });

  it('streams chunk events, a stop chunk and [DONE]', async () => {
    await using server = await startFakeOpenAIServer({ reply: 'abcdef', chunkSize: 4 });
    const response = await post(server.url, { model: 'm', messages: [], stream: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events
      .slice(0, -1)
      .map((event) => JSON.parse(event.slice('data: '.length)) as ChunkEvent);
    expect(chunks.map((chunk) => chunk.choices[0]!.delta.content ?? null)).toEqual([
      'abcd',
      'ef',
      null,
    ]);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
  });

  it('fails with a JSON 500 in fail mode and 404s other paths', async () => {
    await using server = await startFakeOpenAIServer({ mode: 'fail' });
    const failed = await post(server.url, { messages: [], stream: true });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toHaveProperty('error.type', 'server_error');
    const missing = await fetch(`${server.url}/models`);
    expect(missing.status).toBe(404);
    expect(server.requests).toBe(1);
  });
});
