import { describe, expect, it } from 'vitest';
import { Parser, DiagnosticSeverity } from '@asyncapi/parser';
import { apiDocsRoutes, ASYNCAPI_PATH, OPENAPI_PATH, socketHostOf } from './api-docs-routes';
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

describe('the AsyncAPI server address', () => {
  it('is where the server listens, from its settings, and a valid document', async () => {
    let serverUrl = 'http://localhost:0';
    const docs = apiDocsRoutes({ serverUrl: () => serverUrl });
    serverUrl = 'http://10.1.2.3:4567';
    const response = await docs.request(ASYNCAPI_PATH, { headers: { host: 'elsewhere.example' } });
    const document = (await response.json()) as { servers: { parley: { host: string } } };
    expect(document.servers.parley.host).toBe('10.1.2.3:4567');
    const problems = (await new Parser().validate(JSON.stringify(document))).filter(
      (diagnostic) => Number(diagnostic.severity) <= Number(DiagnosticSeverity.Warning),
    );
    expect(problems).toEqual([]);
    // The port is known once the server listens: the next request sees it.
    serverUrl = 'http://10.1.2.3:4568';
    const again = (await (await docs.request(ASYNCAPI_PATH)).json()) as typeof document;
    expect(again.servers.parley.host).toBe('10.1.2.3:4568');
  });

  it('is the Host the document was fetched by when the server listens on every address', () => {
    expect(socketHostOf('http://0.0.0.0:3000', 'chat.example.com')).toBe('chat.example.com');
    expect(socketHostOf('http://[::]:3000', 'chat.example.com:8443')).toBe('chat.example.com:8443');
    expect(socketHostOf('http://0.0.0.0:3000', undefined)).toBe('localhost:3000');
    expect(socketHostOf('http://[::1]:3000', 'other.example')).toBe('[::1]:3000');
  });
});
