import { ParleyError, parseOrThrow, uuidSchema } from '@parley/core';
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { readBodyBytes } from '../plugins/body/read-body-bytes';
import {
  cleanFileName,
  MULTIPART_OVERHEAD,
  readMultipartFiles,
} from '../http/routes/attachment-routes';
import type { AppEnv } from '../http/app-env';
import { success } from '../http/envelope';
import type { KnowledgeService, NewDocument } from './knowledge-service';
import { extractText, kindOf, SUPPORTED_KINDS } from './knowledge-text';

/** `POST /api/agents/{agentId}/knowledge` as JSON: one document's text. */
export const knowledgeJsonBodySchema = z
  .object({
    title: z.string().trim().min(1).max(255).optional(),
    text: z.string().optional(),
    content: z.string().optional(),
    contentType: z.string().max(255).optional(),
  })
  .refine((body) => (body.text ?? body.content) !== undefined, {
    message: 'give the document as text (or content)',
  })
  .describe(
    'One document as text: `{ title, text, contentType }` (`content` is read as `text`, as elizaOS sends it).',
  );

/** Who asks, when the identity module has set one: knowledge is the operator's (an admin's) to change and read. */
function assertAdmin(c: Context<AppEnv>): void {
  const identity = (c.get as (key: string) => unknown)('identity') as
    { kind?: unknown } | undefined;
  if (
    identity &&
    typeof identity === 'object' &&
    identity.kind !== undefined &&
    identity.kind !== 'admin'
  ) {
    throw new ParleyError('FORBIDDEN', "Only an operator may read or change an agent's knowledge");
  }
}

async function documentsOf(c: Context<AppEnv>, service: KnowledgeService): Promise<NewDocument[]> {
  const { settings } = service;
  const type = c.req.header('content-type') ?? '';
  if (/^multipart\/form-data\s*;/i.test(type)) {
    const files = await readMultipartFiles(
      c.req.raw,
      type,
      settings.maxFilesPerRequest * settings.maxDocumentBytes,
      'The upload',
    );
    if (files.length === 0)
      throw new ParleyError(
        'BAD_REQUEST',
        'The body holds no file (send them in fields "files" or "file")',
      );
    if (files.length > settings.maxFilesPerRequest) {
      throw new ParleyError(
        'PAYLOAD_TOO_LARGE',
        `${files.length} files exceed the limit of ${settings.maxFilesPerRequest} per request (KNOWLEDGE_MAX_FILES_PER_REQUEST)`,
        {
          details: {
            limit: settings.maxFilesPerRequest,
            setting: 'KNOWLEDGE_MAX_FILES_PER_REQUEST',
          },
        },
      );
    }
    const documents: NewDocument[] = [];
    for (const file of files) {
      const name = cleanFileName(file.name);
      if (file.size > settings.maxDocumentBytes) {
        throw new ParleyError(
          'PAYLOAD_TOO_LARGE',
          `${name} exceeds the limit of ${settings.maxDocumentBytes} bytes per document (KNOWLEDGE_MAX_DOCUMENT_BYTES)`,
          {
            details: {
              limit: settings.maxDocumentBytes,
              setting: 'KNOWLEDGE_MAX_DOCUMENT_BYTES',
              file: name,
            },
          },
        );
      }
      const data = new Uint8Array(await file.arrayBuffer());
      const kind = kindOf(file.type, name, data);
      if (!kind)
        throw new ParleyError('UNSUPPORTED_MEDIA_TYPE', `${name}: send ${SUPPORTED_KINDS}`);
      const text = await extractText(data, kind, name);
      documents.push({
        title: name,
        text,
        contentType: file.type || contentTypeOf(kind),
        source: 'upload',
        size: data.length,
      });
    }
    return documents;
  }
  if (!/^application\/json\b/i.test(type)) {
    throw new ParleyError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the documents as multipart/form-data, or one as JSON { title, text }',
    );
  }
  const bytes = await readBodyBytes(
    c.req.raw,
    settings.maxDocumentBytes * 2 + MULTIPART_OVERHEAD,
    'The document',
  );
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ParleyError('BAD_REQUEST', 'Request body must be valid JSON');
  }
  const body = parseOrThrow(knowledgeJsonBodySchema, value, 'body');
  const declared = body.contentType ?? 'text/plain';
  const kind = kindOf(declared, body.title);
  if (!kind || kind === 'pdf') {
    throw new ParleyError(
      'UNSUPPORTED_MEDIA_TYPE',
      `contentType ${declared}: send text, Markdown, HTML or JSON as text (a PDF as a file)`,
    );
  }
  const raw = (body.text ?? body.content)!;
  const text =
    kind === 'text' || kind === 'markdown'
      ? raw
      : await extractText(new TextEncoder().encode(raw), kind, body.title ?? 'document');
  const title = body.title ?? (raw.trim().split('\n')[0] ?? '').slice(0, 60) ?? 'document';
  return [
    {
      title: title || 'document',
      text,
      contentType: declared,
      source: 'upload',
      size: Buffer.byteLength(raw),
    },
  ];
}

function contentTypeOf(kind: string): string {
  return (
    {
      text: 'text/plain',
      markdown: 'text/markdown',
      html: 'text/html',
      json: 'application/json',
      pdf: 'application/pdf',
    }[kind] ?? 'text/plain'
  );
}

/**
 * Knowledge of an agent over HTTP: `POST /api/agents/{agentId}/knowledge` (multipart, one or more files, or JSON
 * `{ title, text }`) stores documents, all of a request or none (each file is read, checked and split before any
 * is stored; one that fails to store takes the request's others back out); `GET` lists them, `GET
 * /{documentId}` answers one with its text, `DELETE /{documentId}` removes it and its fragments. The same token as
 * the other agent routes; when identities are on, an operator's.
 */
export function knowledgeRoutes(
  service: KnowledgeService,
  agentExists: (agentId: string) => Promise<void>,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const agentOf = async (c: Context<AppEnv>) => {
    assertAdmin(c);
    const agentId = parseOrThrow(uuidSchema, c.req.param('agentId'), 'agentId').toLowerCase();
    await agentExists(agentId);
    return agentId;
  };
  const documentOf = (c: Context<AppEnv>) =>
    parseOrThrow(uuidSchema, c.req.param('documentId'), 'documentId').toLowerCase();

  routes.post('/api/agents/:agentId/knowledge', async (c) => {
    const agentId = await agentOf(c);
    const documents = await documentsOf(c, service);
    const prepared = documents.map((document) => service.prepare(agentId, document));
    const results = await service.addAll(agentId, prepared, c.req.raw.signal);
    const created = results.some((result) => result.created);
    return c.json(
      success({
        documents: results.map(({ document, created: isNew }) => ({ ...document, created: isNew })),
      }),
      created ? 201 : 200,
    );
  });

  routes.get('/api/agents/:agentId/knowledge', async (c) => {
    const agentId = await agentOf(c);
    const count = c.req.query('limit') === undefined ? 100 : Number(c.req.query('limit'));
    const offset = c.req.query('offset') === undefined ? 0 : Number(c.req.query('offset'));
    if (!Number.isInteger(count) || count < 1 || count > 1_000)
      throw new ParleyError('BAD_REQUEST', 'limit must be a whole number from 1 to 1000');
    if (!Number.isInteger(offset) || offset < 0)
      throw new ParleyError('BAD_REQUEST', 'offset must be a whole number from 0');
    return c.json(success({ documents: await service.list(agentId, { count, offset }) }));
  });

  routes.get('/api/agents/:agentId/knowledge/:documentId', async (c) => {
    const agentId = await agentOf(c);
    return c.json(success(await service.get(agentId, documentOf(c))));
  });

  routes.delete('/api/agents/:agentId/knowledge/:documentId', async (c) => {
    const agentId = await agentOf(c);
    const documentId = documentOf(c);
    if (!(await service.delete(agentId, documentId))) {
      throw new ParleyError('NOT_FOUND', `The agent has no document ${documentId}`);
    }
    return c.json(success({ deleted: documentId }));
  });

  return routes;
}
