import type { AgentRuntime, RouteRequest } from '@parley/plugin-sdk';
import {
  recordResponse,
  runPluginTests,
  startTestServer,
  type TestServer,
} from '@parley/plugin-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadPlugin } from './upload-plugin';
import { uploadRoute } from './upload-route';

const TOKEN = 'server-token';
const DEFAULT_CHANNEL = '0c4d9a8e-3b2f-4e1a-9c7d-112233445566';
const OTHER_CHANNEL = '7a6b5c4d-3e2f-4a1b-8c9d-665544332211';
const characters = [
  { name: 'Archivist' },
  { name: 'Homeless', settings: { NOTIFICATION_CHANNEL_ID: '' } },
];
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(uploadPlugin, {
    characters,
    settings: { NOTIFICATION_CHANNEL_ID: DEFAULT_CHANNEL },
    authToken: TOKEN,
    uploadLimit: 4096,
  });
});
afterAll(() => server?.stop());

function upload(
  fields: Record<string, string>,
  file?: { content: string | Uint8Array; name: string; type: string },
  options: { agent?: number; apiKey?: string | null } = {},
) {
  const form = new FormData();
  if (file) form.set('file', new Blob([file.content], { type: file.type }), file.name);
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const agent = server.agents[options.agent ?? 0]!;
  const apiKey = options.apiKey === undefined ? TOKEN : options.apiKey;
  return fetch(`${server.url}/upload?agentId=${agent.agentId}`, {
    method: 'POST',
    headers: apiKey === null ? {} : { 'x-api-key': apiKey },
    body: form,
  });
}

/**
 * A multipart upload written byte for byte, as a hostile client would: FormData would escape CR and LF in the
 * file name, a raw client sends them as they are.
 */
function rawUpload(
  fields: Record<string, string>,
  filename: string,
  target: TestServer = server,
  nameParameter = `filename="${filename}"`,
) {
  const boundary = '----parley-hostile-boundary';
  const parts = Object.entries(fields).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; ${nameParameter}\r\n` +
      `Content-Type: text/plain\r\n\r\nx\r\n--${boundary}--\r\n`,
  );
  return fetch(`${target.url}/upload?agentId=${target.agents[0]!.agentId}`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-api-key': TOKEN },
    body: Buffer.from(parts.join(''), 'utf8'),
  });
}

/** What the route answers, called directly, when the runtime's `sendMessage` does `sendMessage`. */
async function uploadWhenSending(sendMessage: AgentRuntime['sendMessage']) {
  const { response, written } = recordResponse();
  const runtime = {
    agentId: '00000000-0000-4000-8000-000000000009',
    character: { name: 'Unlucky' },
    getSetting: () => DEFAULT_CHANNEL,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    sendMessage,
  } as unknown as AgentRuntime;
  const request: RouteRequest = {
    method: 'POST',
    path: '/upload',
    headers: {},
    body: {},
    rawBody: new Uint8Array(),
    params: {},
    query: {},
    file: { originalname: 'a.txt', size: 1, mimetype: 'text/plain', buffer: new Uint8Array(1) },
  };
  await uploadRoute.handler!(request, response, runtime);
  return written;
}

const report = { content: '%PDF-1.7 quarterly numbers', name: 'q3.pdf', type: 'application/pdf' };

describe('POST /upload', () => {
  it('makes the agent post the file as an attachment into the given channel', async () => {
    const response = await upload({ description: 'Q3 report', channelId: OTHER_CHANNEL }, report);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    const attachment = { filename: 'q3.pdf', size: 26, mimeType: 'application/pdf' };
    expect(body).toEqual({
      success: true,
      messageId: expect.any(String),
      channelId: OTHER_CHANNEL,
      attachment,
    });

    const [message] = await server.listMessages(OTHER_CHANNEL);
    expect(message).toMatchObject({
      id: body.messageId,
      author_id: server.agents[0]!.agentId,
      content: 'Received q3.pdf (26 B): Q3 report',
      metadata: { attachments: [attachment], description: 'Q3 report' },
    });
  });

  it('posts into NOTIFICATION_CHANNEL_ID when no channelId is given', async () => {
    const response = await upload(
      {},
      { content: new Uint8Array(2000), name: 'blob.bin', type: '' },
    );
    expect(response.status).toBe(200);
    const [message] = await server.listMessages(DEFAULT_CHANNEL);
    expect(message).toMatchObject({
      content: 'Received blob.bin (2.0 KB)',
      metadata: {
        attachments: [{ filename: 'blob.bin', size: 2000, mimeType: 'application/octet-stream' }],
      },
    });
  });

  it('answers 400 with success false when no file is sent', async () => {
    const response = await upload({ description: 'forgot the file', channelId: OTHER_CHANNEL });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ success: false, error: expect.any(String) });
  });

  it('answers 400 for a channelId that is not a UUID, and when there is no default channel', async () => {
    expect((await upload({ channelId: 'general' }, report)).status).toBe(400);
    expect((await upload({}, report, { agent: 1 })).status).toBe(400);
  });

  it('answers 413 for a file over the upload limit, posting nothing', async () => {
    const before = (await server.listMessages(OTHER_CHANNEL)).length;
    const response = await upload(
      { channelId: OTHER_CHANNEL },
      { content: new Uint8Array(8192), name: 'big.bin', type: 'application/octet-stream' },
    );
    expect(response.status).toBe(413);
    expect(await server.listMessages(OTHER_CHANNEL)).toHaveLength(before);
  });

  it('keeps a hostile file name or description storable: NUL and CR/LF are dropped', async () => {
    const channelId = crypto.randomUUID();
    const cases = [
      { name: 'a\u0000b.txt', description: undefined, filename: 'ab.txt' },
      {
        name: 'evil\r\nInjected: yes.txt',
        description: undefined,
        filename: 'evilInjected: yes.txt',
      },
      { name: 'nul\u0000\r\n.txt', description: 'see\u0000 this', filename: 'nul.txt' },
      { name: 'plain.txt', description: 'hello\u0000', filename: 'plain.txt' },
    ];
    const answers = await Promise.all(
      cases.map(({ name, description }) =>
        // FormData writes CR, LF and `"` percent-encoded (%0D%0A), and the parser decodes them: the
        // route sees the CR/LF the client wrote. NUL goes as it is.
        upload(
          { channelId, ...(description === undefined ? {} : { description }) },
          {
            content: 'x',
            name,
            type: 'text/plain',
          },
        ),
      ),
    );
    for (const [index, response] of answers.entries()) {
      expect(response.status).toBe(200);
      expect(((await response.json()) as { attachment: unknown }).attachment).toEqual({
        filename: cases[index]!.filename,
        size: 1,
        mimeType: 'text/plain',
      });
    }
    const messages = await server.listMessages(channelId);
    expect(messages.map((message) => message.content).sort()).toEqual(
      [
        'Received ab.txt (1 B)',
        'Received evilInjected: yes.txt (1 B)',
        'Received nul.txt (1 B): see this',
        'Received plain.txt (1 B): hello',
      ].sort(),
    );
  });

  it('answers 400 for a file name whose CR/LF breaks the part’s headers, posting nothing', async () => {
    const channelId = crypto.randomUUID();
    const response = await rawUpload({ channelId }, 'evil\r\nInjected: yes.txt');
    expect(response.status).toBe(400);
    expect(await server.listMessages(channelId)).toEqual([]);
  });

  it('answers 400 for a file name of 100,000 characters under the default upload limit, posting nothing', async () => {
    const roomy = await startTestServer(uploadPlugin, {
      characters,
      settings: { NOTIFICATION_CHANNEL_ID: DEFAULT_CHANNEL },
      authToken: TOKEN,
    });
    try {
      const channelId = crypto.randomUUID();
      const response = await rawUpload({ channelId }, 'x'.repeat(100_000), roomy);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        success: false,
        error: 'the file name must be at most 255 characters',
      });
      expect(await roomy.listMessages(channelId)).toEqual([]);
    } finally {
      await roomy.stop();
    }
  });

  it('answers 400 with the server’s reason when the server refuses the message', async () => {
    const refusal = Object.assign(new Error('Invalid message: text is too long'), {
      code: 'BAD_REQUEST',
    });
    expect(await uploadWhenSending(() => Promise.reject(refusal))).toMatchObject({
      status: 400,
      body: { success: false, error: 'Invalid message: text is too long' },
    });
  });

  it('is not public: without the server’s API key it answers 401', async () => {
    expect((await upload({ channelId: OTHER_CHANNEL }, report, { apiKey: null })).status).toBe(401);
  });

  it('answers 500 without internal detail when posting fails', async () => {
    const written = await uploadWhenSending(() =>
      Promise.reject(new Error('disk full on /var/lib/parley')),
    );

    expect(written).toEqual({
      headers: {},
      status: 500,
      body: { success: false, error: 'Failed to post the upload' },
    });
  });
});

describe('the plugin’s own suites', () => {
  it('pass against a live server that requires an API key', async () => {
    const result = await runPluginTests(uploadPlugin, {
      settings: { NOTIFICATION_CHANNEL_ID: DEFAULT_CHANNEL },
      authToken: TOKEN,
    });
    expect(result.results.filter((entry) => !entry.ok)).toEqual([]);
    expect(result.passed).toBe(2);
  });
});
