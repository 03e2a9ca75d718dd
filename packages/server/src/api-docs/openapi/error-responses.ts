import { ERROR_CODES, apiErrorBodySchema, type ErrorCode } from '@parley/core';
import { jsonSchemaOf, type JsonSchema } from '../json-schema-of';

/** Name of the shared error envelope schema in `components.schemas`. */
export const ERROR_SCHEMA_NAME = 'ApiError';

/** What each error code means to a caller, used as the response description. */
const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  BAD_REQUEST: 'Bad input: invalid JSON, a field that fails validation, or a malformed id.',
  UNAUTHORIZED: 'Missing or wrong `x-api-key` (only when the server has `SERVER_AUTH_TOKEN`).',
  FORBIDDEN: 'The caller may not do this.',
  NOT_FOUND: 'Unknown id or path.',
  CONFLICT: 'The id is already in use.',
  PAYLOAD_TOO_LARGE: 'The body is over the size limit.',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not JSON.',
  RATE_LIMITED: 'Too many requests.',
  INTERNAL: 'Internal error; the body never carries internal detail.',
  MODEL_ERROR: 'The model provider failed.',
  UNAVAILABLE: 'A service the endpoint needs is unavailable.',
  TIMEOUT: 'The agent or route did not answer in time.',
};

/** The `components.schemas` entry of the error envelope `{ success: false, error: { code, message, details? } }`. */
export function errorEnvelopeSchema(): JsonSchema {
  const schema = jsonSchemaOf(apiErrorBodySchema, 'output');
  const properties = schema.properties as Record<string, JsonSchema>;
  const error = properties.error as { properties: Record<string, JsonSchema> };
  error.properties.code = { type: 'string', enum: Object.keys(ERROR_CODES) };
  return schema;
}

/**
 * OpenAPI response objects for error codes, keyed by HTTP status. Codes that share a status share one
 * response whose description names each of them.
 */
export function errorResponses(codes: readonly ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, sharing] of byStatus) {
    responses[String(status)] = {
      description: sharing.map((code) => `\`${code}\`: ${ERROR_DESCRIPTIONS[code]}`).join(' '),
      content: {
        'application/json': { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA_NAME}` } },
      },
    };
  }
  return responses;
}
