import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebFiles } from './web-files';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'parley-web-'));
  await mkdir(join(root, 'assets'));
  await writeFile(join(root, 'index.html'), '<!doctype html><title>Parley</title>');
  await writeFile(join(root, 'assets', 'index-abc.js'), 'console.log(1)');
  await writeFile(join(root, 'secret.txt'), 'no');
});

afterAll(() => rm(root, { recursive: true, force: true }));

describe('createWebFiles', () => {
  it('serves the page with a strict policy and revalidation', async () => {
    const response = await createWebFiles(root).respond('index.html');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<title>Parley</title>');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('serves hashed assets for a year and answers 304 to a matching etag', async () => {
    const files = createWebFiles(root);
    const first = await files.respond('assets/index-abc.js');
    expect(first.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(first.headers.get('cache-control')).toContain('immutable');
    const etag = first.headers.get('etag')!;
    expect((await files.respond('assets/index-abc.js', etag)).status).toBe(304);
  });

  it('serves nothing outside the page', async () => {
    const files = createWebFiles(root);
    for (const name of ['secret.txt', 'assets/../secret.txt', 'assets/missing.js', '../x']) {
      expect((await files.respond(name)).status, name).toBe(404);
    }
  });

  it('says how to build the page when it is missing, and finds it once built', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'parley-web-empty-'));
    const files = createWebFiles(empty);
    const missing = await files.respond('index.html');
    expect(missing.status).toBe(503);
    expect(await missing.text()).toContain('@parley/web build');
    await writeFile(join(empty, 'index.html'), 'built');
    expect(await (await files.respond('index.html')).text()).toBe('built');
    await rm(empty, { recursive: true, force: true });
  });
});
