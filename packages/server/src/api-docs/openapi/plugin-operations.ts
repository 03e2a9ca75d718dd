import type { ErrorCode, RouteType } from '@parley/core';
import { guardErrorsOf, securityOf, type SecuritySchemeName } from './built-in-operations';
import { ERROR_SCHEMA_NAME, errorResponses } from './error-responses';
import { toOpenApiPath } from './openapi-path';

/** What the documents need of a loaded plugin route; `PluginRouteEntry` of the route table fits. */
export interface DocumentedPluginRoute {
  pluginName: string;
  route: {
    type: RouteType;
    path: string;
    name?: string;
    public?: boolean;
    isMultipart?: boolean;
  };
}

/** One OpenAPI operation of a plugin route, with the path and method it is filed under. */
export interface PluginOperation {
  path: string;
  method: string;
  operation: Record<string, unknown>;
}

/** A plugin handler's own failure body, SPEC.md's `{ success: false, error: string }`. */
const HANDLER_FAILURE = {
  type: 'object',
  properties: { success: { const: false }, error: { type: 'string' } },
  required: ['success', 'error'],
};

function operationIdOf(route: DocumentedPluginRoute, taken: Set<string>): string {
  const base =
    (route.route.name ?? `${route.pluginName} ${route.route.type} ${route.route.path}`)
      .replace(/[^A-Za-z0-9]+(.)?/g, (_match, next?: string) => (next ?? '').toUpperCase())
      .replace(/^./, (first) => first.toLowerCase()) || 'pluginRoute';
  let id = `plugin${base.charAt(0).toUpperCase()}${base.slice(1)}`;
  for (let n = 2; taken.has(id); n += 1) id = `${id.replace(/\d+$/, '')}${n}`;
  taken.add(id);
  return id;
}

function requestBodyOf(route: DocumentedPluginRoute['route']): Record<string, unknown> | undefined {
  if (route.type === 'GET' || route.type === 'STATIC' || route.type === 'DELETE') return undefined;
  if (route.isMultipart) {
    return {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } },
            additionalProperties: { type: 'string' },
          },
        },
      },
    };
  }
  return {
    description:
      'Plugin-defined; JSON, text and URL-encoded forms reach the handler as `req.body`.',
    content: { 'application/json': { schema: {} } },
  };
}

/** The server's own failures on a plugin route: the guards', then agent selection and the route's own check. */
function serverErrors(
  method: string,
  path: string,
  auth: SecuritySchemeName[],
  isPublic: boolean,
): ErrorCode[] {
  return [
    ...guardErrorsOf({ method, path, auth }),
    'BAD_REQUEST',
    ...(isPublic ? [] : (['UNAUTHORIZED'] as const)),
    'NOT_FOUND',
  ];
}

/** A handler route: its body is read within a limit, the handler may fail or run out of time. */
function handlerResponses(serverCodes: ErrorCode[]): Record<string, unknown> {
  return {
    200: { description: 'Plugin-defined answer.' },
    ...errorResponses([...serverCodes, 'PAYLOAD_TOO_LARGE']),
    500: {
      description:
        'The handler failed (its own shape), or the server did (the error envelope); internal detail is ' +
        'never exposed.',
      content: {
        'application/json': {
          schema: {
            oneOf: [HANDLER_FAILURE, { $ref: `#/components/schemas/${ERROR_SCHEMA_NAME}` }],
          },
        },
      },
    },
    504: {
      description: 'The handler did not answer within the route timeout.',
      content: { 'application/json': { schema: HANDLER_FAILURE } },
    },
    default: {
      description:
        'Any other status the handler sets; the statuses above are the only ones the server gives itself.',
    },
  };
}

/** A STATIC route: files served by the server, no body read and no handler. */
function staticResponses(serverCodes: ErrorCode[]): Record<string, unknown> {
  return {
    200: { description: 'The file.' },
    ...errorResponses(serverCodes),
  };
}

function operationOf(
  routes: readonly DocumentedPluginRoute[],
  taken: Set<string>,
): PluginOperation {
  const [first] = routes as [DocumentedPluginRoute, ...DocumentedPluginRoute[]];
  const { route } = first;
  const { path, parameters } = toOpenApiPath(route.path);
  const plugins = [...new Set(routes.map((entry) => entry.pluginName))];
  const isPublic = routes.every((entry) => entry.route.public);
  const auth: SecuritySchemeName[] = isPublic ? [] : ['apiKey'];
  const method = route.type === 'STATIC' ? 'get' : route.type.toLowerCase();
  const isStatic = route.type === 'STATIC';
  const staticNote = isStatic
    ? ' Serves static files (a file, or a folder and what lies beneath it).'
    : '';
  const operation: Record<string, unknown> = {
    operationId: operationIdOf(first, taken),
    summary: route.name ?? `${route.type} ${route.path}`,
    description: `Plugin route of ${plugins.map((name) => `\`${name}\``).join(', ')}.${staticNote}`,
    tags: plugins.map((name) => `plugin: ${name}`),
    'x-parley-plugin': first.pluginName,
    ...(route.name === undefined ? {} : { 'x-parley-route-name': route.name }),
    security: securityOf(auth),
    parameters: [
      ...parameters.map((name) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      {
        name: 'agentId',
        in: 'query',
        required: false,
        description:
          'The agent that serves the route (default: the default agent if it has the route).',
        schema: { type: 'string', format: 'uuid' },
      },
    ],
    responses: (isStatic ? staticResponses : handlerResponses)(
      serverErrors(method, route.path, auth, isPublic),
    ),
  };
  const body = requestBodyOf(route);
  if (body) operation.requestBody = body;
  return { path, method, operation };
}

/**
 * OpenAPI operations of the loaded plugin routes: one per method and path, however many agents serve it,
 * tagged with the plugin's name and carrying the route's `name`.
 */
export function pluginOperations(routes: readonly DocumentedPluginRoute[]): PluginOperation[] {
  const groups = new Map<string, DocumentedPluginRoute[]>();
  for (const entry of routes) {
    const method = entry.route.type === 'STATIC' ? 'GET' : entry.route.type;
    const key = `${method} ${entry.route.path}`;
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  const taken = new Set<string>();
  return [...groups.values()].map((group) => operationOf(group, taken));
}
