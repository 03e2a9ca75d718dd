import { readFile } from 'node:fs/promises';
import type { Route } from '@parley/plugin-sdk';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_OPERATIONS } from './built-in-operations';
import { createOpenApiDocument } from './create-openapi-document';
import { toOpenApiPath } from './openapi-path';

const ok: Route['handler'] = (_req, res) => res.json({ success: true });

const pluginRoutes = [
  { type: 'POST', path: '/fixture/hooks/:hookId', name: 'fixture-hook', handler: ok },
  { type: 'GET', path: '/fixture/open', public: true, handler: ok },
  { type: 'POST', path: '/fixture/upload', isMultipart: true, handler: ok },
  { type: 'STATIC', path: '/fixture/static', filePath: '/tmp' },
] satisfies Route[];

// Two agents serving the same plugin: one operation per method and path.
const entries = [1, 2].flatMap(() =>
  pluginRoutes.map((route) => ({ pluginName: 'docs-fixture', route })),
);
const document = createOpenApiDocument({ pluginRoutes: entries });

describe('createOpenApiDocument', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('is valid without plugins too', async () => {
    const result = await new Validator().validate(createOpenApiDocument());
    expect(result.valid).toBe(true);
  });

  it('has every built-in operation with its responses and the error envelope', () => {
    for (const operation of BUILT_IN_OPERATIONS) {
      const documented = document.paths[toOpenApiPath(operation.path).path]?.[operation.method];
      expect(documented, `${operation.method} ${operation.path}`).toBeDefined();
      const responses = documented!.responses as Record<string, unknown>;
      const statuses = Object.keys(responses).map(Number);
      expect(statuses.some((status) => status < 300)).toBe(true);
      const failures = statuses.filter((status) => status >= 400);
      expect(failures.length).toBeGreaterThan(0);
      for (const status of failures) {
        expect(JSON.stringify(responses[status])).toContain('#/components/schemas/ApiError');
      }
    }
  });

  it('describes requests from the core schemas', () => {
    const post = document.paths['/api/messaging/channels/{channelId}/messages']!.post!;
    expect(JSON.stringify(post.requestBody)).toContain('"enum":["websocket","stream","sync"]');
    expect(post.parameters).toContainEqual(
      expect.objectContaining({ name: 'channelId', in: 'path', required: true }),
    );
    expect(JSON.stringify(post.responses)).toContain('text/event-stream');
    const history = document.paths['/api/messaging/channels/{channelId}/messages']!.get!;
    expect(history.parameters).toContainEqual(
      expect.objectContaining({ name: 'limit', in: 'query', required: false }),
    );
    const submit = JSON.stringify(document.paths['/api/messaging/submit']!.post!.requestBody);
    expect(submit).toContain('channel_id');
    expect(document.paths['/api/server/health']!.get!.security).toEqual([]);
  });

  it("names each plugin route's plugin and route name, once per method and path", () => {
    const hook = document.paths['/fixture/hooks/{hookId}']!.post!;
    expect(hook).toMatchObject({
      'x-parley-plugin': 'docs-fixture',
      'x-parley-route-name': 'fixture-hook',
      tags: ['plugin: docs-fixture'],
      security: [{ apiKey: [] }, {}],
    });
    expect(document.paths['/fixture/open']!.get!.security).toEqual([]);
    expect(JSON.stringify(document.paths['/fixture/upload']!.post!.requestBody)).toContain(
      'multipart/form-data',
    );
    expect(Object.keys(document.paths['/fixture/static']!)).toEqual(['get']);
    const ids = Object.values(document.paths).flatMap((operations) =>
      Object.values(operations).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("carries the server package's version", async () => {
    const { version } = JSON.parse(
      await readFile(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect((document.info as { version: string }).version).toBe(version);
    expect(version).not.toBe('1');
  });

  it('lists the request headers: Idempotency-Key on posts, Last-Event-ID on streams', () => {
    const headersOf = (path: string, method: string) =>
      (document.paths[path]![method]!.parameters as { name: string; in: string }[])
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => parameter.name);
    expect(headersOf('/api/messaging/submit', 'post')).toEqual(['Idempotency-Key']);
    expect(headersOf('/api/messaging/channels/{channelId}/messages', 'post')).toEqual([
      'Idempotency-Key',
      'Last-Event-ID',
    ]);
    expect(headersOf('/api/messaging/replies/{replyId}/events', 'get')).toEqual(['Last-Event-ID']);
  });

  it("lists the guards' statuses, and Retry-After on every 429 and 503", () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const responses = operation.responses as Record<string, { headers?: object }>;
        expect(Object.keys(responses), `${method} ${path}`).toContain('403');
        for (const status of ['429', '503']) {
          if (responses[status]) expect(responses[status].headers).toHaveProperty('Retry-After');
        }
      }
    }
    const post = document.paths['/api/messaging/channels/{channelId}/messages']!.post!;
    expect(Object.keys(post.responses as object)).toEqual([
      '200',
      // elizaOS's body (`{ content }`): the stored message, as elizaOS answers.
      '201',
      '202',
      '204',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
      '500',
      '502',
      '503',
      '504',
    ]);
    // Outside /api: the plugin rate limit, no body limit or content type of the built-in paths.
    expect(Object.keys(document.paths['/metrics']!.get!.responses as object)).toEqual([
      '200',
      '401',
      '403',
      '429',
      '500',
    ]);
  });

  it('says which answers are not in the envelope', () => {
    expect(JSON.stringify(document.info)).toContain('not in the `{ success, data }` envelope');
    for (const path of ['/api/tee/status', '/api/tee/agents']) {
      expect(document.paths[path]!.get!.description).toContain('not in the `{ success, data }`');
    }
    expect(
      document.paths['/api/messaging/channels/{channelId}/messages']!.post!.description,
    ).toContain('not in the `{ success, data }` envelope');
  });
});
