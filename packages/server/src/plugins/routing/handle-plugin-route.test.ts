import type { HttpRouteRequest } from '@parley/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { createPluginTestApp } from '../create-plugin-test-app';

/** An app whose POST /in and multipart POST /upload record the request they got. */
async function recordingApp(options: { bodyLimit?: number; uploadLimit?: number } = {}) {
  const seen: HttpRouteRequest[] = [];
  const record = (req: HttpRouteRequest, res: { json(body: unknown): void }) => {
    seen.push(req);
    res.json({ ok: true });
  };
  const built = await createPluginTestApp({
    ...options,
    plugins: [
      {
        name: 'recorder',
        routes: [
          { type: 'POST', path: '/in', handler: record },
          { type: 'POST', path: '/upload', handler: record, isMultipart: true },
        ],
      },
    ],
  });
  return { ...built, seen };
}

function post(body: NonNullable<RequestInit['body']>, contentType?: string): RequestInit {
  return { method: 'POST', body, headers: contentType ? { 'content-type': contentType } : {} };
}

describe('plugin route bodies', () => {
  it('parses JSON (also +json types) and keeps the exact raw bytes', async () => {
    const { app, seen } = await recordingApp();
    const text = '{ "event": "push",\n  "data": {"n": 1} }';
    expect((await app.request('/in', post(text, 'application/json; charset=utf-8'))).status).toBe(
      200,
    );
    expect((await app.request('/in', post('[1]', 'application/vnd.api+json'))).status).toBe(200);
    expect(seen[0]?.body).toEqual({ event: 'push', data: { n: 1 } });
    expect(new TextDecoder().decode(seen[0]?.rawBody)).toBe(text);
    expect(seen[1]?.body).toEqual([1]);
  });

  it('answers 400 for invalid JSON without calling the handler', async () => {
    const { app, seen } = await recordingApp();
    const response = await app.request('/in', post('{"event":', 'application/json'));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: 'BAD_REQUEST', message: 'Request body must be valid JSON' },
    });
    expect(seen).toHaveLength(0);
  });

  it('gives form fields for urlencoded bodies, text for other types, undefined for an empty body', async () => {
    const { app, seen } = await recordingApp();
    await app.request('/in', post('a=1&b=x+y&a=2', 'application/x-www-form-urlencoded'));
    await app.request('/in', post('héllo', 'text/plain'));
    await app.request('/in', post('', 'application/json'));
    expect(seen.map((req) => req.body)).toEqual([{ a: '2', b: 'x y' }, 'héllo', undefined]);
  });

  it('keeps binary raw bytes exactly', async () => {
    const { app, seen } = await recordingApp();
    const bytes = new Uint8Array([0, 255, 128, 10, 13, 0xc3]);
    await app.request('/in', post(bytes, 'application/octet-stream'));
    expect(seen[0]?.rawBody).toEqual(bytes);
  });

  it('answers 413 for a body over the limit, declared or counted', async () => {
    const { app, seen } = await recordingApp({ bodyLimit: 16 });
    // Refused on the declared length alone, before any byte is read.
    const declared = await app.request('/in', {
      method: 'POST',
      body: 'small',
      headers: { 'content-type': 'text/plain', 'content-length': '100000' },
    });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({
      success: false,
      error: { code: 'PAYLOAD_TOO_LARGE' },
    });

    // A stream has no content-length: the bytes must be counted, and reading must stop at the limit.
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new Uint8Array(8));
      },
    });
    const counted = await app.request('/in', {
      method: 'POST',
      body: endless,
      duplex: 'half',
    });
    expect(counted.status).toBe(413);
    expect((await app.request('/in', post('x'.repeat(17), 'text/plain'))).status).toBe(413);
    expect(pulls).toBeLessThan(10);
    expect((await app.request('/in', post('x'.repeat(16), 'text/plain'))).status).toBe(200);
    expect(seen).toHaveLength(1);
  });
});

describe('multipart routes', () => {
  function form(...files: File[]): FormData {
    const data = new FormData();
    data.append('description', 'a cat');
    data.append('channelId', 'c1');
    for (const file of files) data.append('file', file);
    return data;
  }
  const png = new File([new Uint8Array([137, 80, 78, 71, 1, 2, 3])], 'cat.png', {
    type: 'image/png',
  });

  it('gives one file with its name, size, type and bytes, plus the text fields', async () => {
    const { app, seen } = await recordingApp();
    const response = await app.request('/upload', { method: 'POST', body: form(png) });
    expect(response.status).toBe(200);
    expect(seen[0]?.body).toEqual({ description: 'a cat', channelId: 'c1' });
    expect(seen[0]?.file).toEqual({
      fieldname: 'file',
      originalname: 'cat.png',
      size: 7,
      mimetype: 'image/png',
      buffer: new Uint8Array([137, 80, 78, 71, 1, 2, 3]),
    });
  });

  it('leaves file undefined when none is sent, and gives every file in files (the first in file)', async () => {
    const { app, seen } = await recordingApp();
    await app.request('/upload', { method: 'POST', body: form() });
    expect(seen[0]?.file).toBeUndefined();
    expect(seen[0]?.files).toEqual([]);
    const gif = new File([new Uint8Array([71, 73, 70])], 'dog.gif', { type: 'image/gif' });
    const two = await app.request('/upload', { method: 'POST', body: form(png, gif) });
    expect(two.status).toBe(200);
    expect(seen[1]?.files?.map((file) => file.originalname)).toEqual(['cat.png', 'dog.gif']);
    expect(seen[1]?.file?.originalname).toBe('cat.png');
  });

  it('parses only the fields on a route that is not multipart', async () => {
    const { app, seen } = await recordingApp();
    await app.request('/in', { method: 'POST', body: form(png) });
    expect(seen[0]?.body).toEqual({ description: 'a cat', channelId: 'c1' });
    expect(seen[0]?.file).toBeUndefined();
  });

  it('answers 400 for a malformed multipart body', async () => {
    const { app, seen } = await recordingApp();
    const response = await app.request(
      '/upload',
      post('--nope\r\ngarbage', 'multipart/form-data; boundary=zzz'),
    );
    expect(response.status).toBe(400);
    expect(seen).toHaveLength(0);
  });

  it('answers 413 for an upload over the upload limit, while the body limit does not apply', async () => {
    const { app, seen } = await recordingApp({ bodyLimit: 10, uploadLimit: 2000 });
    const big = new File([new Uint8Array(3000)], 'big.bin');
    const response = await app.request('/upload', { method: 'POST', body: form(big) });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    const fits = new File([new Uint8Array(1000)], 'fits.bin');
    expect((await app.request('/upload', { method: 'POST', body: form(fits) })).status).toBe(200);
    expect(seen[0]?.file?.size).toBe(1000);
  });
});
