/** Where the OpenAPI document is served. */
export const OPENAPI_PATH = '/api/openapi.json';
/** Where the AsyncAPI document is served. */
export const ASYNCAPI_PATH = '/api/asyncapi.json';
