import { API_KEY_HEADER, streamEventSchemas } from '@parley/core';
import type { z } from 'zod';
import { SERVER_PACKAGE_VERSION } from '../package-version';
import {
  BUILT_IN_OPERATIONS,
  guardErrorsOf,
  securityOf,
  type DocumentedOperation,
  type OperationResponse,
} from './built-in-operations';
import { ERROR_SCHEMA_NAME, errorEnvelopeSchema, errorResponses } from './error-responses';
import { jsonSchemaOf, type JsonSchema } from '../json-schema-of';
import { AGENT_OPERATIONS } from './agent-operations';
import { SESSION_OPERATIONS } from './session-operations';
import { ATTACHMENT_OPERATIONS } from './attachment-operations';
import { CHANNEL_OPERATIONS } from './channel-operations';
import { RECEIPT_OPERATIONS } from './receipt-operations';
import { MCP_OPERATIONS } from './mcp-operations';
import {
  OPENAI_ERROR_SCHEMA_NAME,
  OPENAI_OPERATIONS,
  openAIErrorComponent,
  openAIErrorResponses,
} from './openai-operations';
import { UI_CHAT_OPERATIONS } from './ui-chat-operations';
import { A2A_OPERATIONS } from './a2a-operations';
import { MEMORY_OPERATIONS } from './memory-operations';
import { KNOWLEDGE_OPERATIONS } from './knowledge-operations';
import { AUDIT_OPERATIONS } from './audit-operations';
import { AUTH_OPERATIONS } from './auth-operations';
import { isOpenAIPath } from '../../openai/openai-errors';
import { toOpenApiPath } from './openapi-path';
import { pluginOperations, type DocumentedPluginRoute } from './plugin-operations';

/** Options of {@link createOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  /** The loaded plugin routes (every agent's; duplicates across agents are merged). */
  pluginRoutes?: readonly DocumentedPluginRoute[];
  /** `info.version` (default: the version of `@parley/server`, whose interface this is). */
  version?: string;
}

/** An OpenAPI 3.1 document as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

const STREAM_EVENT_SCHEMA_PREFIX = 'StreamEvent_';

function parameterOf(
  name: string,
  where: 'path' | 'query' | 'header',
  schema: z.ZodType,
  required: boolean,
) {
  const json = jsonSchemaOf(schema, 'input');
  const { description, ...rest } = json;
  return {
    name,
    in: where,
    required,
    ...(typeof description === 'string' ? { description } : {}),
    schema: rest,
  };
}

function parametersOf(operation: DocumentedOperation) {
  const parameters = Object.entries(operation.pathParams ?? {}).map(([name, schema]) =>
    parameterOf(name, 'path', schema, true),
  );
  const query = operation.query ? jsonSchemaOf(operation.query, 'input') : undefined;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries(operation.query?.shape ?? {})) {
    parameters.push(parameterOf(name, 'query', schema as z.ZodType, required.has(name)));
  }
  for (const [name, schema] of Object.entries(operation.headers ?? {})) {
    parameters.push(parameterOf(name, 'header', schema, false));
  }
  return parameters;
}

function eventStreamMedia(): Record<string, unknown> {
  const names = Object.keys(streamEventSchemas);
  return {
    schema: {
      type: 'string',
      description:
        `Blocks of \`id: <n>\`, \`event: <name>\` and \`data: <JSON>\`, separated by a blank line. Events: ` +
        `${names.map((name) => `\`${name}\``).join(', ')} (data schemas under ` +
        `\`components.schemas.${STREAM_EVENT_SCHEMA_PREFIX}<name>\`). \`done\` or \`error\` ends the stream.`,
    },
    'x-parley-events': Object.fromEntries(
      names.map((name) => [
        name,
        { $ref: `#/components/schemas/${STREAM_EVENT_SCHEMA_PREFIX}${name}` },
      ]),
    ),
  };
}

function responseOf(response: OperationResponse): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  if (response.json)
    content['application/json'] = { schema: jsonSchemaOf(response.json, 'output') };
  if (response.eventStream) content['text/event-stream'] = eventStreamMedia();
  if (response.text) content[response.text] = { schema: { type: 'string' } };
  return Object.keys(content).length === 0
    ? { description: response.description }
    : { description: response.description, content };
}

function builtInOperationOf(operation: DocumentedOperation): Record<string, unknown> {
  const result: Record<string, unknown> = {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: [operation.tag],
    security: securityOf(operation.auth),
    parameters: parametersOf(operation),
    responses: {
      ...Object.fromEntries(
        Object.entries(operation.responses).map(([status, response]) => [
          status,
          responseOf(response),
        ]),
      ),
      // `/v1` answers its failures in OpenAI's error shape, which its clients read.
      ...(isOpenAIPath(operation.path) ? openAIErrorResponses : errorResponses)([
        ...guardErrorsOf(operation),
        ...operation.errors,
      ]),
    },
  };
  if (operation.body) {
    result.requestBody = {
      required: true,
      content: { 'application/json': { schema: jsonSchemaOf(operation.body, 'input') } },
    };
  }
  if (operation.multipartFile) {
    result.requestBody = {
      required: true,
      content: {
        // An operation with a JSON body too takes either (knowledge: files, or one document as JSON).
        ...(result.requestBody as { content?: Record<string, unknown> } | undefined)?.content,
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: {
              file: { type: 'string', format: 'binary', description: operation.multipartFile },
            },
          },
        },
      },
    };
  }
  return result;
}

/**
 * The OpenAPI 3.1 document of the HTTP interface: every built-in endpoint with its request, responses and error
 * envelope, generated from the zod schemas of `@parley/core` the routes validate with, and every loaded plugin
 * route under its plugin's name.
 *
 * @example
 * const document = createOpenApiDocument({ pluginRoutes: table.entries });
 */
export function createOpenApiDocument(options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const add = (path: string, method: string, operation: Record<string, unknown>) => {
    paths[path] = { ...paths[path], [method]: operation };
  };
  const documented = [
    ...BUILT_IN_OPERATIONS,
    ...CHANNEL_OPERATIONS,
    ...RECEIPT_OPERATIONS,
    ...AGENT_OPERATIONS,
    ...SESSION_OPERATIONS,
    ...ATTACHMENT_OPERATIONS,
    ...MCP_OPERATIONS,
    ...OPENAI_OPERATIONS,
    ...UI_CHAT_OPERATIONS,
    ...A2A_OPERATIONS,
    ...MEMORY_OPERATIONS,
    ...KNOWLEDGE_OPERATIONS,
    ...AUDIT_OPERATIONS,
    ...AUTH_OPERATIONS,
  ];
  for (const operation of documented) {
    add(toOpenApiPath(operation.path).path, operation.method, builtInOperationOf(operation));
  }
  for (const { path, method, operation } of pluginOperations(options.pluginRoutes ?? [])) {
    add(path, method, operation);
  }
  const schemas: Record<string, JsonSchema> = {
    [ERROR_SCHEMA_NAME]: errorEnvelopeSchema(),
    [OPENAI_ERROR_SCHEMA_NAME]: openAIErrorComponent(),
  };
  for (const [name, schema] of Object.entries(streamEventSchemas)) {
    schemas[`${STREAM_EVENT_SCHEMA_PREFIX}${name}`] = jsonSchemaOf(schema, 'output');
  }
  const pluginTags = [
    ...new Set((options.pluginRoutes ?? []).map((entry) => `plugin: ${entry.pluginName}`)),
  ];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Parley',
      version: options.version ?? SERVER_PACKAGE_VERSION,
      description: [
        'The HTTP interface of a Parley agent server.',
        '',
        'Answers under `/api` use the envelope `{ success: true, data }`, and every failure under `/api` ' +
          '`{ success: false, error: { code, message, details? } }`. These successful answers are not in the ' +
          '`{ success, data }` envelope; their fields are at the top level, as the interface reference defines ' +
          'them: the channel message answers ' +
          'of the `websocket` and `sync` modes (`success`, `userMessage`, `replyId`, `agentResponse`), the ' +
          'TEE answers (`/api/tee/status`, `/api/tee/agents`), server-sent event streams, and `/metrics` ' +
          "(Prometheus text). `/mcp` speaks JSON-RPC (the Model Context Protocol); the guards' refusals " +
          'before it (401, 403, 413, 415, 429) still use the error envelope. `/v1` speaks OpenAI: its ' +
          "answers and every failure there, the guards' included, are in OpenAI's shapes. Plugin routes answer what their " +
          'handler sends; their own failures are `{ success: false, error: string }`.',
        '',
        'With `SERVER_AUTH_TOKEN` set, operations with a security requirement need the token (the ' +
          '`x-api-key` header). Every operation can answer 403 when the Host is not an allowed name, and ' +
          '429 and 503 answers may carry `Retry-After`. The socket events are described by the AsyncAPI ' +
          'document at `/api/asyncapi.json`.',
      ].join('\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'server', description: 'Liveness, readiness and metrics.' },
      { name: 'agents', description: 'The agents this server hosts.' },
      { name: 'messaging', description: 'Messages in, agent replies out.' },
      { name: 'channels', description: 'Channels, their participants and their history.' },
      { name: 'tee', description: 'Trusted execution environment status and attestations.' },
      { name: 'webhooks', description: 'Outbound webhook subscriptions and their deliveries.' },
      { name: 'mcp', description: 'The agents as Model Context Protocol tools (Streamable HTTP).' },
      {
        name: 'openai',
        description: 'The agents as OpenAI models: chat completions and responses.',
      },
      {
        name: 'a2a',
        description: 'The agents over A2A: agent cards and JSON-RPC (tasks).',
      },
      { name: 'memory', description: "What agents remember, and elizaOS's memory API." },
      { name: 'audit', description: 'The append-only audit log of admin actions.' },
      { name: 'auth', description: "The chat page's sign-in with the OIDC issuer." },
      { name: 'documents', description: 'The API documents themselves.' },
      ...pluginTags.map((name) => ({ name, description: 'Routes of a loaded plugin.' })),
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: API_KEY_HEADER,
          description: 'Equal to `SERVER_AUTH_TOKEN`; needed only when the server sets one.',
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            '`Authorization: Bearer <SERVER_AUTH_TOKEN>`, where an operation lists it (for scrapers that ' +
            'cannot send other headers).',
        },
      },
    },
  };
}
