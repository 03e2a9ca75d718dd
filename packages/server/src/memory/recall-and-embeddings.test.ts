import { randomUUID } from 'node:crypto';
import { ParleyError } from '@parley/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../test/scripted-model';
import { startTestServer } from '../../test/test-server';
import { startFakeOpenAIServer } from '../models/testing/fake-openai-server';
import { createOpenAICompatibleEmbeddings, embeddingsFromEnv } from '../models/embeddings';
import { hashEmbedding } from '../models/embeddings/hash-embeddings';

const cleanups: (() => PromiseLike<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('embeddings from an OpenAI-compatible server', () => {
  it('batches, retries a 429, and answers one checked vector per text in order', async () => {
    const upstream = await startFakeOpenAIServer({ embeddingFailures: 1 });
    cleanups.push(() => upstream.close());
    const embeddings = createOpenAICompatibleEmbeddings({
      baseUrl: upstream.url,
      model: 'fake-embed',
      batchSize: 4,
    });
    const texts = Array.from({ length: 10 }, (_, index) => `text number ${index}`);
    const vectors = await embeddings.embed(texts);
    expect(vectors).toEqual(texts.map((text) => hashEmbedding(text)));
    expect(embeddings.dimensions).toBe(384);
    // 3 batches, the first tried twice.
    expect(upstream.embeddingRequests).toBe(4);
  });

  it('a failing server is a MODEL_ERROR, its body never repeated', async () => {
    const upstream = await startFakeOpenAIServer({ embeddingFailures: 100 });
    cleanups.push(() => upstream.close());
    const embeddings = createOpenAICompatibleEmbeddings({
      baseUrl: upstream.url,
      model: 'fake-embed',
      maxRetries: 1,
    });
    const error = await embeddings.embed(['x']).catch((reason: unknown) => reason);
    expect(ParleyError.isInstance(error) && error.code).toBe('MODEL_ERROR');
    expect(String((error as Error).message)).not.toContain('internal detail');
  });

  it("settings: the offline embedder by default; the chat model's key only for its own address", () => {
    expect(embeddingsFromEnv({}).name).toBe('offline-hash');
    expect(() => embeddingsFromEnv({ EMBEDDING_MODEL: 'm', EMBEDDING_URL: 'ftp://x' })).toThrow(
      /EMBEDDING_URL/,
    );
    const local = embeddingsFromEnv({
      EMBEDDING_MODEL: 'nomic-embed-text',
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
    });
    expect(local).toMatchObject({ name: 'openai', model: 'nomic-embed-text' });
  });
});

describe('recall into the prompt', () => {
  it("a recaller's text reaches the model's # Context and its sources the stored reply; a failing one is left out", async () => {
    const model = new ScriptedModel();
    const test = await startTestServer({ model, characters: [{ name: 'Mem' }] });
    cleanups.push(() => test[Symbol.asyncDispose]());
    test.server.memory.addRecaller(({ message }) =>
      Promise.resolve({
        title: 'Knowledge',
        text: `The handbook says the wifi password is tulip-42 (asked: ${message.content})`,
        sources: [{ id: 'doc-1', title: 'handbook.md', score: 0.9 }],
      }),
    );
    test.server.memory.addRecaller(() => Promise.reject(new Error('broken recaller')));
    test.server.memory.addRecaller(() => Promise.resolve(undefined));
    const channelId = randomUUID();
    const response = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        text: 'what is the wifi password?',
        entityId: 'user-1',
        mode: 'sync',
      }),
    });
    expect(response.status).toBe(200);
    const system = model.requests[0]!.messages.find((message) => message.role === 'system')!;
    expect(system.content).toMatch(
      /# Context\n## Knowledge\nThe handbook says the wifi password is tulip-42 \(asked: what is the wifi password\?\)/,
    );
    const history = (await (
      await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`)
    ).json()) as { data: { messages: { source_type: string; raw_message: unknown }[] } };
    const reply = history.data.messages.find((message) => message.source_type === 'agent_response');
    expect(reply?.raw_message).toMatchObject({
      sources: [{ id: 'doc-1', title: 'handbook.md', score: 0.9 }],
    });
  });

  it('an agent with nothing to recall gets no # Context and no sources', async () => {
    const model = new ScriptedModel();
    const test = await startTestServer({ model, characters: [{ name: 'Mem' }] });
    cleanups.push(() => test[Symbol.asyncDispose]());
    const channelId = randomUUID();
    await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello', entityId: 'user-1', mode: 'sync' }),
    });
    const system = model.requests[0]!.messages.find((message) => message.role === 'system')!;
    expect(system.content).not.toContain('# Context');
  });
});
