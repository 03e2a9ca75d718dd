import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ParleyServer } from '../../create-server';
import { createLogger } from '../../logger';
import { databaseKinds } from '../../../test/databases';
import { ScriptedModel } from '../../../test/scripted-model';
import { startTestServer, type TestServer } from '../../../test/test-server';
import { cleanFileName, contentDisposition } from './attachment-routes';

const kinds = await databaseKinds();
const MAX = 4096;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);

interface Ref {
  id: string;
  url: string;
  contentType: string;
  name: string;
  size: number;
}

function form(...files: { bytes: Uint8Array | string; name: string; type?: string }[]): FormData {
  const body = new FormData();
  for (const file of files) {
    body.append('file', new Blob([file.bytes], { type: file.type ?? '' }), file.name);
  }
  return body;
}

describe.each(kinds)('attachments on $name', ({ create, skip }) => {
  const model = new ScriptedModel();
  let test: TestServer;
  let channelId: string;

  const upload = (channel: string, body: FormData | string, headers: Record<string, string> = {}) =>
    fetch(`${test.url}/api/messaging/channels/${channel}/upload-media`, {
      method: 'POST',
      body,
      headers,
    });
  const send = async (channel: string, text: string, metadata?: Record<string, unknown>) => {
    const response = await fetch(`${test.url}/api/messaging/channels/${channel}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text, entityId: 'user-1', mode: 'sync', metadata }),
    });
    expect(response.status).toBe(200);
  };
  const uploaded = async (channel: string, body: FormData): Promise<Ref> => {
    const response = await upload(channel, body);
    expect(response.status).toBe(201);
    return ((await response.json()) as { data: Ref }).data;
  };

  beforeAll(async () => {
    if (skip) return;
    test = await startTestServer(
      { model, characters: [{ name: 'Eliza' }], attachmentMaxBytes: MAX },
      await create(),
    );
    // A channel exists once a message was posted to it.
    channelId = randomUUID();
    await send(channelId, 'hello');
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  it.skipIf(skip)('stores a text file and serves it back as a download, nosniff', async () => {
    const ref = await uploaded(
      channelId,
      form({ bytes: 'line one\nline two', name: '../../notes.txt', type: 'text/plain' }),
    );
    expect(ref).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: `/api/messaging/attachments/${ref.id}`,
      contentType: 'text/plain',
      name: 'notes.txt',
      size: 17,
    });
    const response = await fetch(`${test.url}${ref.url}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="notes.txt"/,
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    expect(await response.text()).toBe('line one\nline two');
  });

  it.skipIf(skip)(
    'sniffs types: a PNG is inline, HTML is a download, a lie is corrected',
    async () => {
      const png = await uploaded(
        channelId,
        form({ bytes: PNG, name: 'x.txt', type: 'text/plain' }),
      );
      expect(png.contentType).toBe('image/png');
      const image = await fetch(`${test.url}${png.url}`);
      expect(image.headers.get('content-disposition')).toMatch(/^inline;/);
      expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG);

      const html = await uploaded(
        channelId,
        form({ bytes: '<script>alert(1)</script>', name: 'page.html', type: 'image/png' }),
      );
      expect(html.contentType).toBe('text/html');
      const page = await fetch(`${test.url}${html.url}`);
      expect(page.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');

      // Binary bytes of no accepted format: 415, nothing stored.
      const binary = await upload(
        channelId,
        form({ bytes: new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]), name: 'a.out' }),
      );
      expect(binary.status).toBe(415);
    },
  );

  it.skipIf(skip)('refuses SVG with 415 in every disguise', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    const prolog = '<?xml version="1.0" encoding="UTF-8" standalone="no"?>';
    const doctype =
      '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">';
    const disguises: { bytes: Uint8Array | string; name: string; type: string }[] = [
      { bytes: svg, name: 'x.svg', type: 'image/svg+xml' },
      { bytes: `${prolog}\n${svg}`, name: 'notes.txt', type: 'text/plain' },
      {
        bytes: `\uFEFF  \n\t<!-- a comment -->\n${svg}`,
        name: 'data.bin',
        type: 'application/octet-stream',
      },
      { bytes: `${prolog}${doctype}<svg width="1"/>`, name: 'd.xml', type: 'text/xml' },
      { bytes: `<!DOCTYPE svg [ <!ENTITY x "y"> ]>\n<svg/>`, name: 'e.txt', type: '' },
      { bytes: '<SVG onload="alert(1)"></SVG>', name: 'upper.md', type: 'text/markdown' },
      { bytes: '<!DOCTYPE html>\n<svg onload="alert(1)"/>', name: 'h.svg', type: 'image/svg+xml' },
      {
        bytes: '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>',
        name: 'prefixed.txt',
        type: 'text/plain',
      },
      {
        bytes: '<root xmlns="http://www.w3.org/2000/svg"><circle r="1"/></root>',
        name: 'ns.xml',
        type: 'text/xml',
      },
      { bytes: gzipSync(Buffer.from(`${prolog}${svg}`)), name: 'x.svgz', type: 'image/svg+xml' },
      {
        bytes: gzipSync(Buffer.from(`\uFEFF<!-- c -->${svg}`)),
        name: 'x.gz',
        type: 'application/gzip',
      },
      // UTF-16 with its BOM: not UTF-8 text at all.
      { bytes: Buffer.from(`\uFEFF${svg}`, 'utf16le'), name: 'wide.svg', type: 'text/plain' },
    ];
    for (const file of disguises) {
      const response = await upload(channelId, form(file));
      expect(response.status, file.name).toBe(415);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(body.error.message).toMatch(/SVG/);
    }
    // Text that only mentions SVG, and a gzip of plain text, are still accepted.
    const prose = await uploaded(
      channelId,
      form({ bytes: 'Draw it with an <svg> element.', name: 'how.md', type: 'text/markdown' }),
    );
    expect(prose.contentType).toBe('text/markdown');
    const packed = await uploaded(
      channelId,
      form({ bytes: gzipSync(Buffer.from('just text')), name: 'a.gz', type: '' }),
    );
    expect(packed.contentType).toBe('application/gzip');
  });

  it.skipIf(skip)(
    'refuses a file over ATTACHMENT_MAX_BYTES with 413, declared or not',
    async () => {
      const big = await upload(channelId, form({ bytes: 'x'.repeat(MAX + 1), name: 'big.txt' }));
      expect(big.status).toBe(413);
      expect(((await big.json()) as { error: { code: string } }).error.code).toBe(
        'PAYLOAD_TOO_LARGE',
      );
      // A body far over the limit is refused from its declared length, before it is read.
      const huge = await upload(channelId, form({ bytes: 'x'.repeat(MAX * 40), name: 'huge.txt' }));
      expect(huge.status).toBe(413);
      // Exactly the limit is accepted.
      expect(
        (await upload(channelId, form({ bytes: 'y'.repeat(MAX), name: 'ok.txt' }))).status,
      ).toBe(201);
    },
  );

  it.skipIf(skip)(
    'answers 400 for bodies that hold no single file, 404 and 400 for channels and ids',
    async () => {
      const json = await upload(channelId, JSON.stringify({ file: 'x' }), {
        'content-type': 'application/json',
      });
      expect(json.status).toBe(400);
      const fields = new FormData();
      fields.append('note', 'no file here');
      expect((await upload(channelId, fields)).status).toBe(400);
      const two = form({ bytes: 'a', name: 'a.txt' }, { bytes: 'b', name: 'b.txt' });
      expect((await upload(channelId, two)).status).toBe(400);
      expect((await upload(channelId, form({ bytes: '', name: 'empty.txt' }))).status).toBe(400);
      const broken = await upload(channelId, '--x\r\nnot a part', {
        'content-type': 'multipart/form-data; boundary=x',
      });
      expect(broken.status).toBe(400);

      expect((await upload(randomUUID(), form({ bytes: 'a', name: 'a.txt' }))).status).toBe(404);
      expect((await upload('not-a-uuid', form({ bytes: 'a', name: 'a.txt' }))).status).toBe(400);
      expect((await fetch(`${test.url}/api/messaging/attachments/${randomUUID()}`)).status).toBe(
        404,
      );
      expect((await fetch(`${test.url}/api/messaging/attachments/nope`)).status).toBe(400);
    },
  );

  it.skipIf(skip)(
    'puts a text attachment into the model request; other files by name, type and size',
    async () => {
      const notes = await uploaded(
        channelId,
        form({ bytes: 'The launch code is PELICAN-42.', name: 'secret.md' }),
      );
      const image = await uploaded(channelId, form({ bytes: PNG, name: 'cat.png' }));
      // An attachment of another channel is not read, whatever the metadata says.
      const other = randomUUID();
      await send(other, 'elsewhere');
      const foreign = await uploaded(other, form({ bytes: 'FOREIGN-TEXT', name: 'f.txt' }));

      const before = model.requests.length;
      await send(channelId, 'What is in my file?', { attachments: [notes, image, foreign] });
      const request = model.requests[before]!;
      const user = request.messages.filter((message) => message.role === 'user').at(-1)!;
      const content = JSON.stringify(user.content);
      expect(content).toContain('What is in my file?');
      expect(content).toContain('[Attachment: secret.md (text/markdown, 30 B)]');
      expect(content).toContain('The launch code is PELICAN-42.');
      expect(content).toContain(
        '[Attachment: cat.png (image/png, 15 B)] — its content is not shown',
      );
      expect(content).toContain(
        '[Attachment: f.txt (text/plain, 12 B)] — its content is not shown',
      );
      expect(content).not.toContain('FOREIGN-TEXT');
    },
  );

  it.skipIf(skip)('is served by another process on the same database', async () => {
    if (test.database.location.kind !== 'postgres') return;
    const ref = await uploaded(channelId, form({ bytes: 'shared', name: 's.txt' }));
    const second: ParleyServer = createServer({
      port: 0,
      logger: createLogger('silent'),
      env: {},
      model,
      characters: [{ name: 'Eliza' }],
      database: test.database.location,
    });
    const { url } = await second.start();
    try {
      const response = await fetch(`${url}${ref.url}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('shared');
    } finally {
      await second.stop();
    }
  });
});

describe('file names and dispositions', () => {
  it('keeps the last path segment without control characters', () => {
    expect(cleanFileName('../../etc/passwd')).toBe('passwd');
    expect(cleanFileName('C:\\Users\\a\\report.pdf')).toBe('report.pdf');
    expect(cleanFileName('a\u0000b\nc.txt')).toBe('abc.txt');
    expect(cleanFileName('..')).toBe('file');
    expect(cleanFileName('')).toBe('file');
    expect(cleanFileName('x'.repeat(400))).toHaveLength(255);
  });

  it('quotes names safely in Content-Disposition', () => {
    expect(contentDisposition('text/plain', 'a"b\\c.txt')).toBe(
      `attachment; filename="a_b_c.txt"; filename*=UTF-8''a%22b%5Cc.txt`,
    );
    expect(contentDisposition('image/png', 'café.png')).toBe(
      `inline; filename="caf_.png"; filename*=UTF-8''caf%C3%A9.png`,
    );
  });
});
