import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { createAsyncApiDocument, type AsyncApiDocument } from './asyncapi/create-asyncapi-document';
import { createOpenApiDocument, type OpenApiDocument } from './openapi/create-openapi-document';
import { DOCS_PATH, docsInitScript, docsPageHtml } from './docs-page';
import { ASYNCAPI_PATH, OPENAPI_PATH } from './document-paths';
import type { DocumentedPluginRoute } from './openapi/plugin-operations';
import { SWAGGER_UI_FILES, readSwaggerUiFile } from './swagger-ui-assets';

export { ASYNCAPI_PATH, OPENAPI_PATH };

/** Options of {@link apiDocsRoutes}. */
export interface ApiDocsRoutesOptions {
  /**
   * The loaded plugin routes, or a function giving them: plugins load when the server starts, after the app
   * is built, so a function is read at the first request.
   */
  pluginRoutes?: readonly DocumentedPluginRoute[] | (() => readonly DocumentedPluginRoute[]);
  /**
   * The server's base address from its settings (`http://127.0.0.1:3000`), read at each request: the port is
   * known once the server listens. It is the AsyncAPI server's `host`.
   */
  serverUrl?: () => string | undefined;
}

/** Bind addresses that mean "every address": no client connects to them by that name. */
const WILDCARD_HOSTS: ReadonlySet<string> = new Set(['0.0.0.0', '[::]', '::']);

/**
 * The socket's `host:port` for the AsyncAPI document: the server's own from its settings, or, when it listens
 * on every address, the Host the request reached it by (the Host guard has already allowed it).
 */
export function socketHostOf(
  serverUrl: string | undefined,
  requestHost: string | undefined,
): string | undefined {
  if (serverUrl === undefined) return requestHost;
  const url = new URL(serverUrl);
  if (WILDCARD_HOSTS.has(url.hostname)) return requestHost ?? `localhost:${url.port}`;
  return url.host;
}

/**
 * The hono sub-app of the API documents: `GET /api/openapi.json` (OpenAPI 3.1), `GET /api/asyncapi.json`
 * (AsyncAPI 3, the socket events) and `GET /api/docs` (Swagger UI from the local `swagger-ui-dist`, no CDN).
 * They describe the interface, not data, so they are readable without a token.
 *
 * @example
 * app.route('/', apiDocsRoutes({ pluginRoutes: () => table.entries }));
 */
export function apiDocsRoutes(options: ApiDocsRoutesOptions = {}): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const readPluginRoutes = () =>
    typeof options.pluginRoutes === 'function' ? options.pluginRoutes() : options.pluginRoutes;
  let openApi: { from: unknown; document: OpenApiDocument } | undefined;
  let asyncApi: { host: string | undefined; document: AsyncApiDocument } | undefined;

  routes.get(OPENAPI_PATH, (c) => {
    const pluginRoutes = readPluginRoutes();
    // Rebuilt only if the plugin route table was replaced; generating from the schemas takes milliseconds.
    const cached =
      openApi !== undefined && openApi.from === pluginRoutes
        ? openApi
        : { from: pluginRoutes, document: createOpenApiDocument({ pluginRoutes }) };
    openApi = cached;
    return c.json(cached.document);
  });
  routes.get(ASYNCAPI_PATH, (c) => {
    const host = socketHostOf(options.serverUrl?.(), c.req.header('host'));
    // One document kept: the address changes once (when the port is known), or per Host on a wildcard bind.
    if (asyncApi === undefined || asyncApi.host !== host) {
      asyncApi = { host, document: createAsyncApiDocument(host === undefined ? {} : { host }) };
    }
    return c.json(asyncApi.document);
  });
  routes.get(DOCS_PATH, (c) => c.html(docsPageHtml()));
  routes.get(`${DOCS_PATH}/init.js`, (c) =>
    c.body(docsInitScript(OPENAPI_PATH), 200, {
      'content-type': 'text/javascript; charset=utf-8',
    }),
  );
  routes.get(`${DOCS_PATH}/:file`, async (c) => {
    const file = c.req.param('file');
    const body = await readSwaggerUiFile(file);
    if (!body) return c.notFound();
    return c.body(body, 200, {
      'content-type': SWAGGER_UI_FILES[file]!,
      'cache-control': 'public, max-age=3600',
    });
  });
  return routes;
}
