import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPluginTestApp } from '../create-plugin-test-app';

let base: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'parley-static-'));
  await mkdir(join(base, 'public/img'), { recursive: true });
  await mkdir(join(base, 'public/sub'), { recursive: true });
  await mkdir(join(base, 'outside'), { recursive: true });
  await writeFile(join(base, 'public/index.html'), '<h1>home</h1>');
  await writeFile(join(base, 'public/app.js'), 'console.log(1)');
  await writeFile(join(base, 'public/style.css'), 'body{}');
  await writeFile(join(base, 'public/img/logo.png'), new Uint8Array([137, 80, 78, 71]));
  await writeFile(join(base, 'public/sub/index.html'), '<h1>sub</h1>');
  await writeFile(join(base, 'public/data.unknownext'), 'x');
  await writeFile(join(base, 'public/.env'), 'SECRET=1');
  await writeFile(join(base, 'outside/secret.txt'), 'top secret');
  await writeFile(join(base, 'readme.md'), '# readme');
  await symlink(join(base, 'outside/secret.txt'), join(base, 'public/leak.txt'));
  await symlink(join(base, 'outside'), join(base, 'public/leakdir'));
  await symlink(join(base, 'public/app.js'), join(base, 'public/alias.js'));
  // Symlinks whose names look harmless but whose targets are dotfiles inside the folder.
  await mkdir(join(base, 'public/.git'), { recursive: true });
  await writeFile(join(base, 'public/.git/config'), 'token=abc');
  await symlink(join(base, 'public/.env'), join(base, 'public/config.txt'));
  await symlink(join(base, 'public/.git'), join(base, 'public/repo'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function staticApp() {
  const { app } = await createPluginTestApp({
    plugins: [
      {
        name: 'site',
        routes: [
          { type: 'STATIC', path: '/site', filePath: join(base, 'public') },
          { type: 'STATIC', path: '/readme', filePath: join(base, 'readme.md') },
          { type: 'GET', path: '/site-api', handler: (_req, res) => res.json({ api: true }) },
        ],
      },
    ],
  });
  return app;
}

describe('STATIC routes', () => {
  it('serves a single file at exactly its path', async () => {
    const app = await staticApp();
    const response = await app.request('/readme');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await response.text()).toBe('# readme');
    expect((await app.request('/readme/other')).status).toBe(404);
  });

  it('serves a folder with index.html at its root and in sub-folders', async () => {
    const app = await staticApp();
    for (const path of ['/site', '/site/']) {
      const response = await app.request(path);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('<h1>home</h1>');
    }
    expect(await (await app.request('/site/sub')).text()).toBe('<h1>sub</h1>');
    expect((await app.request('/site-api')).status).toBe(200);
  });

  it.each([
    ['/site/index.html', 'text/html; charset=utf-8'],
    ['/site/app.js', 'text/javascript; charset=utf-8'],
    ['/site/style.css', 'text/css; charset=utf-8'],
    ['/site/img/logo.png', 'image/png'],
    ['/site/data.unknownext', 'application/octet-stream'],
  ])('serves %s as %s', async (path, type) => {
    const response = await (await staticApp()).request(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await (await staticApp()).request('/site/app.js', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('14');
    expect(await response.text()).toBe('');
  });

  it('answers 404 for a missing file and for dotfiles', async () => {
    const app = await staticApp();
    expect((await app.request('/site/nope.js')).status).toBe(404);
    expect((await app.request('/site/.env')).status).toBe(404);
    expect((await app.request('/site/%2eenv')).status).toBe(404);
  });

  it('follows a symlink that stays inside the folder', async () => {
    const response = await (await staticApp()).request('/site/alias.js');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('console.log(1)');
  });

  it.each(['/site/config.txt', '/site/repo/config'])(
    'never serves a dotfile through a symlink with an innocent name: %s → 404',
    async (path) => {
      const response = await (await staticApp()).request(path);
      expect(response.status).toBe(404);
      const text = await response.text();
      expect(text).not.toContain('SECRET');
      expect(text).not.toContain('token');
    },
  );

  it.each([
    '/site/leak.txt',
    '/site/leakdir/secret.txt',
    '/site/../outside/secret.txt',
    '/site/%2e%2e/outside/secret.txt',
  ])('never serves outside the folder: %s → 404', async (path) => {
    const response = await (await staticApp()).request(path);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('top secret');
  });

  it.each([
    '/site/..%2foutside%2fsecret.txt',
    '/site/..%2Foutside/secret.txt',
    '/site/..%5coutside%5csecret.txt',
    '/site/%2e%2e%2foutside/secret.txt',
    '/site/app.js%00.png',
    '/site/%E0%A4%A',
  ])('refuses an encoded traversal or bad byte: %s → 400', async (path) => {
    const response = await (await staticApp()).request(path);
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain('top secret');
  });

  it('does not serve STATIC routes for other methods', async () => {
    expect((await (await staticApp()).request('/site/app.js', { method: 'POST' })).status).toBe(
      404,
    );
  });
});
