import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopServer, type LoopFixture } from '../../../test/agent-loop-fixture';
import { PIXEL_PNG } from '../../../test/mcp-fixtures/fixture-tools.mjs';
import { FAST_MCP, askTool, waitFor } from '../../../test/mcp-fixtures/mcp-test-kit';

const BLOB_SERVER = fileURLToPath(
  new URL('../../../test/mcp-fixtures/blob-server.mjs', import.meta.url),
);
const PLAIN = 'Plain notes, nothing active.';

interface Attachment {
  filename: string;
  mimeType: string;
  size: number;
  url?: string;
  shown?: boolean;
}

/**
 * An MCP server (a real child process) answers a tool call with SVG, HTML and lying types next to honest files:
 * only bytes of an inert type (PNG, JPEG, GIF, WebP images; plain text) reach the channel, typed by what they
 * are; the rest are named to the model as text.
 */
describe('attachments from an MCP result are sniffed, never taken from the declared type', () => {
  let loop: LoopFixture;

  beforeAll(async () => {
    loop = await startLoopServer(() => [], {
      characters: [
        {
          name: 'Ada',
          settings: {
            mcp: {
              servers: { blobs: { type: 'stdio', command: process.execPath, args: [BLOB_SERVER] } },
            },
          },
        },
      ],
      mcp: FAST_MCP,
    });
    await waitFor(
      async () => (await askTool(loop, 'blobs')).agentResponse.toolCalls?.[0]?.error === undefined,
      'the blob server',
    );
  });
  afterAll(async () => {
    await loop?.test[Symbol.asyncDispose]();
  });

  it('posts only the PNG and the plain text, as what they are; SVG and HTML are omitted and named', async () => {
    const channelId = loop.channel();
    const body = await askTool(loop, 'blobs', {}, channelId);
    const output = body.agentResponse.toolCalls?.[0]?.output as {
      text: string;
      data: { attachments: Attachment[] };
    };
    expect(output.data.attachments).toEqual([
      { filename: 'blobs-1.png', mimeType: 'image/png', size: 68, shown: true },
      { filename: 'blobs-2.txt', mimeType: 'text/plain', size: PLAIN.length, shown: true },
    ]);
    const lines = output.text.split('\n');
    expect(lines[0]).toBe('here are the files');
    // Each omitted blob is named to the model with its declared type, what its bytes are and its size.
    const omitted = lines.filter((line) => line.includes('omitted'));
    expect(omitted).toHaveLength(5);
    expect(omitted[0]).toMatch(/^\[omitted: an image declared image\/svg\+xml, \d+ bytes of SVG; /);
    expect(omitted[1]).toMatch(/^\[omitted: an image declared image\/png, \d+ bytes of SVG; /);
    expect(omitted[2]).toMatch(/^\[omitted: a resource declared text\/html, \d+ bytes of HTML; /);
    expect(omitted[3]).toMatch(/^\[omitted: a resource declared text\/plain, \d+ bytes of HTML; /);
    expect(omitted[4]).toBe(
      '[omitted: an image declared with a malformed type, 8 bytes of binary data; ' +
        'only PNG, JPEG, GIF and WebP images and plain text are attached]',
    );
    // A declared type is never echoed raw: no markup reaches the model from it.
    expect(output.text).not.toContain('<script>');

    // The channel got one message with the two inert files, typed from their bytes.
    const messages = (await (
      await fetch(`${loop.test.url}/api/messaging/channels/${channelId}/messages`)
    ).json()) as {
      data: { messages: { content: string; metadata: { attachments?: Attachment[] } }[] };
    };
    const posted = messages.data.messages.filter((message) => message.metadata.attachments);
    expect(posted).toHaveLength(1);
    expect(posted[0]!.metadata.attachments).toEqual([
      {
        filename: 'blobs-1.png',
        mimeType: 'image/png',
        size: 68,
        url: `data:image/png;base64,${PIXEL_PNG}`,
      },
      {
        filename: 'blobs-2.txt',
        mimeType: 'text/plain',
        size: PLAIN.length,
        url: `data:text/plain;base64,${Buffer.from(PLAIN).toString('base64')}`,
      },
    ]);
    const everything = JSON.stringify(messages);
    // No script-capable bytes anywhere in the channel, under any type.
    expect(everything).not.toMatch(/data:(?:image\/svg|text\/html)/);
  });
});
