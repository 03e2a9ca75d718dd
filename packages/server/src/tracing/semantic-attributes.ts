/**
 * The OpenTelemetry semantic-convention attribute names Parley's spans carry, written out with the values of
 * `@opentelemetry/semantic-conventions` (all stable): that package's index is a megabyte of constants, loaded at
 * every start for five names, tracing on or off (see docs/decisions.md).
 */
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
export const ATTR_HTTP_ROUTE = 'http.route';
export const ATTR_URL_PATH = 'url.path';
