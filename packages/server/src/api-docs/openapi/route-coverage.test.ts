import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plugin } from '@parley/plugin-sdk';
import { fixturePlugin } from '../fixture-plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ParleyServer } from '../../create-server';
import { createLogger } from '../../logger';
import { createMetrics, metricsRoutes } from '../../metrics';
import { apiDocsRoutes, ASYNCAPI_PATH, OPENAPI_PATH } from '../api-docs-routes';
import { DOCS_PATH } from '../docs-page';
import type { OpenApiDocument } from './create-openapi-document';
import { toOpenApiPath } from './openapi-path';

let server: ParleyServer;
let plugin: Plugin;
let staticFolder: string;
let document: OpenApiDocument;
let url: string;

const TOKEN = 'route-coverage-token';

beforeAll(async () => {
  staticFolder = await mkdtemp(join(tmpdir(), 'parley-docs-'));
  await writeFile(join(staticFolder, 'index.html'), '<p>hi</p>');
  plugin = fixturePlugin('docs-fixture', staticFolder);
  server = createServer({
    port: 0,
    logger: createLogger('silent'),
    env: {},
    database: { kind: 'pglite', dataDir: 'memory' },
    plugins: [plugin],
    authToken: TOKEN,
  });
  // The app mounts the metrics endpoint itself; do as it does, so the table covers it too.
  server.app.route(
    '/',
    metricsRoutes(createMetrics({ processMetrics: false }), { authToken: TOKEN }),
  );
  ({ url } = await server.start());
  // The documents are open: no x-api-key.
  const response = await fetch(`${url}${OPENAPI_PATH}`);
  expect(response.status).toBe(200);
  document = (await response.json()) as OpenApiDocument;
});

afterAll(async () => {
  await server?.stop();
  await rm(staticFolder, { recursive: true, force: true });
});

/** The routes the real server mounts, as `METHOD /openapi/{path}`: the table the document must cover. */
function mountedOperations(): Set<string> {
  // The interactive docs' own script and assets belong to their page.
  const assets = new Set(
    apiDocsRoutes()
      .routes.map((route) => route.path)
      .filter((path) => path.startsWith(`${DOCS_PATH}/`)),
  );
  const mounted = new Set<string>();
  for (const { method, path } of server.app.routes) {
    // Middleware, the docs page's assets, and folder wildcards (documented with their STATIC route).
    if (method === 'ALL' || assets.has(path) || path.endsWith('/*')) continue;
    mounted.add(`${method} ${toOpenApiPath(path).path}`);
  }
  return mounted;
}

function documentedOperations(): Set<string> {
  const documented = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of Object.keys(operations)) documented.add(`${method.toUpperCase()} ${path}`);
  }
  return documented;
}

describe('OpenAPI document against a real server', () => {
  it('is served without a token while the API needs one', async () => {
    expect((await fetch(`${url}/api/agents`)).status).toBe(401);
    for (const path of [ASYNCAPI_PATH, DOCS_PATH]) {
      expect((await fetch(`${url}${path}`)).status, path).toBe(200);
    }
  });

  it('names the loaded plugin routes', () => {
    expect(document.paths['/fixture/hooks/{hookId}']?.post).toMatchObject({
      'x-parley-plugin': 'docs-fixture',
      'x-parley-route-name': 'fixture-hook',
    });
  });

  it('documents exactly the endpoints the server mounts, plugin routes included', () => {
    const mounted = mountedOperations();
    expect(mounted.size).toBeGreaterThan(10);
    expect([...mounted].filter((operation) => !documentedOperations().has(operation))).toEqual([]);
    expect([...documentedOperations()].filter((operation) => !mounted.has(operation))).toEqual([]);
  });
});
