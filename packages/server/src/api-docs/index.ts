/**
 * @module api-docs
 * The API documents: the OpenAPI 3.1 document generated from the core zod schemas, the AsyncAPI 3 document of
 * the socket, and the hono sub-app that serves both and the interactive docs.
 */
export { apiDocsRoutes, ASYNCAPI_PATH, OPENAPI_PATH } from './api-docs-routes';
export type { ApiDocsRoutesOptions } from './api-docs-routes';
export * from './openapi/create-openapi-document';
export { BUILT_IN_OPERATIONS } from './openapi/built-in-operations';
export type { DocumentedOperation } from './openapi/built-in-operations';
export { DOCS_PATH } from './docs-page';
export type { DocumentedPluginRoute } from './openapi/plugin-operations';
export * from './asyncapi/create-asyncapi-document';
