import { ERROR_CODES, apiErrorBodySchema, type ErrorCode } from '@parley/core';
import { jsonSchemaOf, type JsonSchema } from '../json-schema-of';

/** Name of the shared error envelope schema in `components.schemas`. */
export const ERROR_SCHEMA_NAME = 'ApiError';

/** What each error code means to a caller, used as the response description. */
const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  BAD_REQUEST:
    'Bad input: invalid JSON, a field that fails validation, a malformed id, header or query.',
  UNAUTHORIZED: 'Missing or wrong token (only when the server has `SERVER_AUTH_TOKEN`).',
  FORBIDDEN:
    'The Host is not one of the allowed names, or a state-changing request comes from a browser origin that ' +
    'is not allowed.',
  NOT_FOUND: 'Unknown id, agent or path.',
  CONFLICT:
    'This `Idempotency-Key` was already used for a different request, the reply to cancel already ended (or ' +
    'is being stored), or ' +
    'the approval request was already decided or has expired.',
  CANCELLED: 'The reply was cancelled (a cancel, or a message sent with `ifBusy: "interrupt"`).',
  CHANNEL_BUSY: 'A message sent with `ifBusy: "reject"` while a reply to the channel was running.',
  PAYLOAD_TOO_LARGE: 'The body is over the size limit (checked whatever the method).',
  UNSUPPORTED_MEDIA_TYPE: 'The request has a body method but its Content-Type is not JSON.',
  RATE_LIMITED:
    "Too many requests from this client (its token, else its address), or too many of the channel's " +
    'messages waiting for a reply; `Retry-After` or `details.retryAfterSeconds` says when to retry.',
  INTERNAL: 'Internal error; the body never carries internal detail.',
  MODEL_ERROR: 'The model provider failed.',
  UNAVAILABLE:
    'Something the endpoint needs is unavailable (the database, the TEE, room for more replies) or the ' +
    'server is stopping; retry later.',
  TIMEOUT: 'The agent did not answer in time.',
};

/** The `Retry-After` header of 429 and 503 answers. */
const RETRY_AFTER = {
  'Retry-After': {
    description:
      'Seconds to wait before retrying: sent by the per-client rate limit and with every thrown ' +
      '`UNAVAILABLE` (a database outage, the TEE, no room for more replies, a stopping server); not with ' +
      "readiness's 503, nor with a full channel queue's 429, whose `details.retryAfterSeconds` says it.",
    required: false,
    schema: { type: 'integer', minimum: 0 },
  },
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
  return errorResponsesIn(codes, {
    schemaName: ERROR_SCHEMA_NAME,
    describe: (sharing) =>
      sharing.map((code) => `\`${code}\`: ${ERROR_DESCRIPTIONS[code]}`).join(' '),
    retryAfter: RETRY_AFTER,
  });
}

/** How {@link errorResponsesIn} writes a face's error responses. */
export interface ErrorResponseStyle {
  /** The `components.schemas` entry of the body. */
  schemaName: string;
  /** The description of a status's response, from the codes that share the status. */
  describe: (sharing: readonly ErrorCode[]) => string;
  /** The headers of 429 and 503 answers. */
  retryAfter: Record<string, unknown>;
}

/** Error responses for `codes`, keyed by HTTP status (codes that share a status share one), in `style`. */
export function errorResponsesIn(
  codes: readonly ErrorCode[],
  style: ErrorResponseStyle,
): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, sharing] of byStatus) {
    responses[String(status)] = {
      description: style.describe(sharing),
      ...(status === 429 || status === 503 ? { headers: style.retryAfter } : {}),
      content: {
        'application/json': { schema: { $ref: `#/components/schemas/${style.schemaName}` } },
      },
    };
  }
  return responses;
}
