import { randomUUID } from 'node:crypto';
import knowledgePlugin from '@elizaos/plugin-knowledge';
import type { Plugin } from '@parley/plugin-sdk';
import { runPluginSuites } from '@parley/plugin-sdk/testing';
import { createOpenAICompatibleModel } from '@parley/server';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '@parley/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/start-server';

/**
 * `@elizaos/plugin-knowledge` 1.6.1 from npm, unchanged, on a real in-process Parley server whose embeddings come
 * from the fake OpenAI-compatible server's `/v1/embeddings`: its routes answer (no 500), and a document uploaded
 * through it is stored, embedded and found through its own search, on the runtime's memory members.
 */

let upstream: FakeOpenAIServer;
let test: TestServer;
let agentId: string;

beforeAll(async () => {
  upstream = await startFakeOpenAIServer({
    // Asked about the office, the model asks for the plugin's dynamic KNOWLEDGE provider as elizaOS's template has
    // it do (`<providers>`), then answers with what came back.
    reply: (messages) => {
      const read = messages.find((message) => message.role === 'tool');
      if (read) return `From the handbook: ${String(read.content)}`;
      return String(messages.at(-1)?.content).includes('office')
        ? '<response><thought>look it up</thought><actions>REPLY</actions><providers>KNOWLEDGE</providers><text>Let me check.</text></response>'
        : 'ok';
    },
  });
  test = await startServer({
    rateLimit: false,
    model: createOpenAICompatibleModel({ baseUrl: upstream.url, model: 'fake', timeoutMs: 30_000 }),
    plugins: [knowledgePlugin as unknown as Plugin],
    env: {
      EMBEDDING_URL: upstream.url,
      EMBEDDING_MODEL: 'fake-embed',
      // The plugin's own configuration: its embeddings through the runtime (useModel TEXT_EMBEDDING).
      EMBEDDING_PROVIDER: 'openai',
      TEXT_EMBEDDING_MODEL: 'fake-embed',
      OPENAI_API_KEY: 'not-used',
      OPENAI_BASE_URL: upstream.url,
      LOAD_DOCS_ON_STARTUP: 'false',
    },
  });
  agentId = test.server.agents.defaultAgent.agentId;
}, 120_000);

afterAll(async () => {
  await test?.[Symbol.asyncDispose]();
  await upstream?.close();
});

/**
 * Uploads `text` as `filename` through the plugin's `POST /documents`, then waits (on its own search, not a clock)
 * until searching for `query` finds it.
 */
async function uploadAndFind(filename: string, text: string, query: string): Promise<void> {
  const form = new FormData();
  form.append('files', new Blob([text], { type: 'text/plain' }), filename);
  form.append('agentId', agentId);
  const uploaded = await fetch(`${test.url}/documents?agentId=${agentId}`, {
    method: 'POST',
    body: form,
  });
  expect(uploaded.status).toBe(200);
  const search = new URLSearchParams({ q: query, threshold: '0', agentId });
  await expect
    .poll(
      async () => {
        const response = await fetch(`${test.url}/search?${search.toString()}`);
        return JSON.stringify(await response.json());
      },
      { timeout: 30_000 },
    )
    .toContain(text);
}

describe('@elizaos/plugin-knowledge 1.6.1, unchanged', () => {
  it('answers GET /documents, /knowledges, /search and /graph/nodes without a 500', async () => {
    for (const path of ['/documents', '/knowledges', '/search', '/graph/nodes']) {
      const query = new URLSearchParams({
        agentId,
        ...(path === '/search' ? { q: 'anything' } : {}),
      });
      const response = await fetch(`${test.url}${path}?${query.toString()}`);
      expect(response.status, path).toBe(200);
      expect(((await response.json()) as { success: boolean }).success, path).toBe(true);
    }
  });

  it('stores a document uploaded through it, embedded by /v1/embeddings, and finds it through its search', async () => {
    const embeddingsBefore = upstream.embeddingRequests;
    const fact = `The wifi password of the Lisbon office is TEAL-${randomUUID().slice(0, 4)}.`;
    await uploadAndFind('handbook.txt', fact, 'wifi password');
    expect(upstream.embeddingRequests).toBeGreaterThan(embeddingsBefore);
    const listed = await fetch(`${test.url}/documents?agentId=${agentId}`);
    expect(JSON.stringify(await listed.json())).toContain('handbook.txt');
  });

  it('its dynamic KNOWLEDGE provider, asked for in <providers>, brings the fragment to the model', async () => {
    const code = `AMBER-${randomUUID().slice(0, 6)}`;
    const fact = `The door code of the Porto office is ${code}.`;
    await uploadAndFind('porto.txt', fact, 'door code Porto');
    const answer = await fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        text: 'What is the door code of the Porto office?',
        entityId: randomUUID(),
        mode: 'sync',
      }),
    });
    const body = (await answer.json()) as {
      agentResponse: { text: string; toolCalls?: { toolName: string }[] };
    };
    expect(body.agentResponse.toolCalls?.map((call) => call.toolName)).toEqual(['READ_CONTEXT']);
    expect(body.agentResponse.text).toContain(code);
  });

  it('its own test suite: the tests that exercise the runtime pass on Parley', async () => {
    const report = await runPluginSuites(
      knowledgePlugin as unknown as Plugin,
      test.server.agents.defaultAgent,
      {
        timeoutMs: 60_000,
      },
    );
    const passed = report.results.filter((result) => result.ok).map((result) => result.test);
    // Before: 5 of 15 (no runtime.services). Three of the five that still fail call `plugin.init`, which 1.6.1
    // does not export, and two look for the document id they passed (one in addKnowledge's answer, one in its
    // fragments' metadata) while 1.6.1 replaces it with its own: they fail on elizaOS's runtime too
    // (docs/memory.md).
    expect(passed).toEqual(
      expect.arrayContaining([
        'Should initialize KnowledgeService correctly',
        'Should extract text from text files',
        'Should handle empty file buffer',
        'Should create document memory correctly',
        'Should handle duplicate document uploads',
        'Should retrieve knowledge based on query',
        'Should format knowledge in provider output',
        'Should process character knowledge on startup',
        'Should handle and log errors appropriately',
        'Should detect binary content types correctly',
      ]),
    );
    expect(report.results).toHaveLength(15);
  });
});
