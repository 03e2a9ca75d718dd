import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyPGliteTemplate, databaseKinds, type TestDatabase } from '../../test/databases';
import { startTestServer } from '../../test/test-server';
import { createServer } from '../create-server';
import { createLogger } from '../logger';
import { createOpenAICompatibleModel } from '../models';
import {
  createHashEmbeddings,
  createOpenAICompatibleEmbeddings,
  type EmbeddingProvider,
} from '../models/embeddings';
import { startFakeOpenAIServer, type FakeChatMessage } from '../models/testing/fake-openai-server';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers read loosely, asserted field by field
const body = async (response: Response): Promise<any> => response.json();
const text = (message: FakeChatMessage) =>
  typeof message.content === 'string' ? message.content : '';

/** A one-page PDF whose text is `phrase` (Helvetica, one text object), built by hand with a correct xref. */
function pdfOf(phrase: string): Uint8Array {
  const stream = `BT /F1 12 Tf 72 720 Td (${phrase}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}

/** An embedder that counts the texts it is asked for. */
function counting(inner: EmbeddingProvider): EmbeddingProvider & { texts: number } {
  const wrapper = {
    texts: 0,
    get name() {
      return inner.name;
    },
    get model() {
      return inner.model;
    },
    get dimensions() {
      return inner.dimensions;
    },
    embed(texts: readonly string[], options?: { signal?: AbortSignal }) {
      wrapper.texts += texts.length;
      return inner.embed(texts, options);
    },
  };
  return wrapper;
}

describe('knowledge', async () => {
  const kinds = await databaseKinds();
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of cleanup.reverse()) await close();
  });

  for (const kind of kinds) {
    it.skipIf(kind.skip)(
      `${kind.name}: a fact uploaded as a document is in the model's context when a later message asks about it, with its source on the reply`,
      async () => {
        const bodies: { messages: FakeChatMessage[] }[] = [];
        const upstream = await startFakeOpenAIServer({
          reply:
            '<response><thought>t</thought><actions>REPLY</actions><text>From the handbook.</text></response>',
          onRequest: ({ body }) => bodies.push(body as { messages: FakeChatMessage[] }),
        });
        cleanup.push(() => upstream.close());
        const test = await startTestServer(
          {
            model: createOpenAICompatibleModel({
              baseUrl: upstream.url,
              model: 'fake',
              timeoutMs: 30_000,
            }),
            embeddings: createOpenAICompatibleEmbeddings({
              baseUrl: upstream.url,
              model: 'fake-embed',
            }),
            rateLimit: false,
            facts: { extraction: 'off' },
          },
          await kind.create(),
        );
        cleanup.push(async () => {
          await test[Symbol.asyncDispose]();
        });
        const agentId = test.server.agents.defaultAgent.agentId;
        const base = `${test.url}/api/agents/${agentId}/knowledge`;

        // Three files in one multipart request: Markdown, HTML and a PDF.
        const form = new FormData();
        form.append(
          'files',
          new Blob(
            [
              '# Handbook\n\nThe wifi password of the Lisbon office is TEAL-4471.\n\nLunch is at noon.',
            ],
            {
              type: 'text/markdown',
            },
          ),
          'handbook.md',
        );
        form.append(
          'files',
          new Blob(
            [
              '<html><body><script>alert(1)</script><p>The parking code is <b>9182</b>.</p></body></html>',
            ],
            {
              type: 'text/html',
            },
          ),
          'parking.html',
        );
        form.append(
          'files',
          new Blob([pdfOf('The fire assembly point is the blue bench.')], {
            type: 'application/pdf',
          }),
          'safety.pdf',
        );
        const uploaded = await fetch(base, { method: 'POST', body: form });
        expect(uploaded.status).toBe(201);
        const { data } = (await uploaded.json()) as {
          data: { documents: { id: string; title: string; fragmentCount: number }[] };
        };
        expect(data.documents.map((document) => document.title)).toEqual([
          'handbook.md',
          'parking.html',
          'safety.pdf',
        ]);
        expect(upstream.embeddingRequests).toBeGreaterThan(0);

        const html = await body(await fetch(`${base}/${data.documents[1]!.id}`));
        expect(html.data.text).toContain('The parking code is 9182.');
        expect(html.data.text).not.toContain('alert');
        const pdf = await body(await fetch(`${base}/${data.documents[2]!.id}`));
        expect(pdf.data.text).toContain('fire assembly point is the blue bench');

        // A later message asks about it: the fact is in the model's context, the document on the reply.
        const channelId = randomUUID();
        const asked = await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            text: 'What is the wifi password of the Lisbon office?',
            entityId: randomUUID(),
            mode: 'sync',
          }),
        });
        expect(asked.status).toBe(200);
        const prompt = bodies.at(-1)!.messages.map(text).join('\n');
        expect(prompt).toContain('TEAL-4471');
        expect(prompt).toContain('handbook.md');
        const history = await body(
          await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`),
        );
        const reply = (
          history.data.messages as {
            author_id: string;
            raw_message?: { sources?: { id: string; title: string }[] };
            metadata?: { sources?: unknown };
          }[]
        ).find((message) => message.author_id === agentId);
        expect(JSON.stringify(reply)).toContain(data.documents[0]!.id);

        // Deleting the document deletes its fragments: the next prompt no longer has the fact.
        expect((await fetch(`${base}/${data.documents[0]!.id}`, { method: 'DELETE' })).status).toBe(
          200,
        );
        expect((await fetch(`${base}/${data.documents[0]!.id}`)).status).toBe(404);
        await fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            text: 'What is the wifi password of the Lisbon office?',
            entityId: randomUUID(),
            mode: 'sync',
          }),
        });
        expect(bodies.at(-1)!.messages.map(text).join('\n')).not.toContain('TEAL-4471');
        const list = (await body(await fetch(base))) as {
          data: { documents: { title: string }[] };
        };
        expect(list.data.documents.map((document) => document.title).sort()).toEqual([
          'parking.html',
          'safety.pdf',
        ]);
      },
      120_000,
    );
  }

  it('refuses a bad or oversized file with a 4xx naming the limit, and stores none of the request', async () => {
    const test = await startTestServer({
      rateLimit: false,
      knowledge: { maxDocumentBytes: 2_000, maxFilesPerRequest: 2 },
    });
    cleanup.push(async () => {
      await test[Symbol.asyncDispose]();
    });
    const base = `${test.url}/api/agents/${test.server.agents.defaultAgent.agentId}/knowledge`;
    const send = (...files: [string, string, string][]) => {
      const form = new FormData();
      for (const [body, type, name] of files)
        form.append('files', new Blob([body], { type }), name);
      return fetch(base, { method: 'POST', body: form });
    };
    const good: [string, string, string] = [
      'The office opens at eight.',
      'text/plain',
      'hours.txt',
    ];

    const tooBig = await send(good, ['x'.repeat(2_001), 'text/plain', 'big.txt']);
    expect(tooBig.status).toBe(413);
    expect((await body(tooBig)).error.message).toContain('KNOWLEDGE_MAX_DOCUMENT_BYTES');
    const tooMany = await send(good, good, good);
    expect(tooMany.status).toBe(413);
    expect((await body(tooMany)).error.message).toContain('KNOWLEDGE_MAX_FILES_PER_REQUEST');
    const binary = await send(good, ['\u0000\u0001', 'image/png', 'x.png']);
    expect(binary.status).toBe(415);
    const badJson = await send(good, ['{nope', 'application/json', 'bad.json']);
    expect(badJson.status).toBe(400);
    const badPdf = await send(good, ['%PDF-1.4 garbage', 'application/pdf', 'bad.pdf']);
    expect(badPdf.status).toBe(400);
    // None of those requests stored its good file.
    expect((await body(await fetch(base))).data.documents).toEqual([]);

    const json = await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Hours', text: 'The office opens at eight.' }),
    });
    expect(json.status).toBe(201);
    // The same text again is the same document: 200, not stored twice.
    const again = await send(good);
    expect(again.status).toBe(200);
    expect((await body(await fetch(base))).data.documents).toHaveLength(1);
    expect((await fetch(`${test.url}/api/agents/${randomUUID()}/knowledge`)).status).toBe(404);
    expect((await fetch(`${base}/not-a-uuid`)).status).toBe(400);
  }, 60_000);

  it("stores a character's knowledge at start (strings, a file, a directory, nothing outside KNOWLEDGE_PATH) and does not embed it again on restart", async () => {
    const root = await mkdtemp(join(tmpdir(), 'parley-knowledge-'));
    cleanup.push(() => rm(root, { recursive: true, force: true }));
    await mkdir(join(root, 'docs', 'deep'), { recursive: true });
    await writeFile(join(root, 'faq.md'), 'The support hotline number is 555-0199.');
    await writeFile(join(root, 'docs', 'deep', 'menu.html'), '<p>Friday is pizza day.</p>');
    await writeFile(join(root, 'docs', 'notes.json'), JSON.stringify({ office: { floor: 7 } }));
    const outside = await mkdtemp(join(tmpdir(), 'parley-outside-'));
    cleanup.push(() => rm(outside, { recursive: true, force: true }));
    await writeFile(join(outside, 'secret.txt'), 'SECRET-OUTSIDE');
    const database: TestDatabase = await copyPGliteTemplate();
    cleanup.push(() => database.dispose());
    const character = {
      name: 'Handbook',
      bio: 'Answers from the handbook.',
      knowledge: [
        'The CEO is called Marguerite.',
        { path: 'faq.md' },
        { directory: 'docs', shared: true },
        { item: { case: 'path', value: 'faq.md' } },
        { path: join(outside, 'secret.txt') },
        { path: '../' + outside.split('/').pop() + '/secret.txt' },
      ],
    };
    const start = async (embeddings: EmbeddingProvider) => {
      const server = createServer({
        port: 0,
        logger: createLogger('silent'),
        env: {},
        rateLimit: false,
        characters: [character],
        embeddings,
        knowledge: { root },
        database: database.location,
      });
      const { url } = await server.start();
      return { server, url };
    };
    const first = counting(createHashEmbeddings());
    const one = await start(first);
    const agentId = one.server.agents.defaultAgent.agentId;
    const list = async (url: string) =>
      (
        (await body(await fetch(`${url}/api/agents/${agentId}/knowledge`))).data.documents as {
          title: string;
        }[]
      )
        .map((document) => document.title)
        .sort();
    const titles = await list(one.url);
    expect(titles).toEqual([
      'The CEO is called Marguerite.',
      'docs/deep/menu.html',
      'docs/notes.json',
      'faq.md',
    ]);
    expect(first.texts).toBeGreaterThanOrEqual(4);
    await one.server.stop();

    const second = counting(createHashEmbeddings());
    const two = await start(second);
    cleanup.push(async () => {
      await two.server.stop();
    });
    expect(await list(two.url)).toEqual(titles);
    // Started again on the same database: nothing embedded for the documents.
    expect(second.texts).toBe(0);
  }, 60_000);
});
