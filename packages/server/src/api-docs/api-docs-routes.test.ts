import { describe, expect, it } from 'vitest';
import { apiDocsRoutes, ASYNCAPI_PATH, OPENAPI_PATH } from './api-docs-routes';
import { DOCS_PATH } from './docs-page';

describe('docs routes', () => {
  const docs = apiDocsRoutes();

  it('serves the interactive docs from the local swagger-ui-dist', async () => {
    const page = await docs.request(DOCS_PATH);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!)) {
      const response = await docs.request(asset);
      expect(response.status, asset).toBe(200);
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
    expect(await (await docs.request(`${DOCS_PATH}/init.js`)).text()).toContain(OPENAPI_PATH);
  });

  it('serves no other file of the package', async () => {
    expect((await docs.request(`${DOCS_PATH}/package.json`)).status).toBe(404);
    expect((await docs.request(`${DOCS_PATH}/..%2Fpackage.json`)).status).toBe(404);
  });
});

describe('documents', () => {
  it('serves both documents as JSON, plugin routes read at the first request', async () => {
    let routes: { pluginName: string; route: { type: 'GET'; path: string } }[] = [];
    const docs = apiDocsRoutes({ pluginRoutes: () => routes });
    routes = [{ pluginName: 'late', route: { type: 'GET', path: '/late' } }];
    const openApi = (await (await docs.request(OPENAPI_PATH)).json()) as { paths: object };
    expect(Object.keys(openApi.paths)).toContain('/late');
    const asyncApi = await docs.request(ASYNCAPI_PATH);
    expect(asyncApi.headers.get('content-type')).toContain('application/json');
    expect(((await asyncApi.json()) as { asyncapi: string }).asyncapi).toMatch(/^3\./);
  });
});
