import { apiSuccessSchema, uuidSchema } from '@parley/core';
import { z } from 'zod';
import { knowledgeJsonBodySchema } from '../../knowledge/knowledge-routes';
import type { DocumentedOperation } from './built-in-operations';

const base = { tag: 'memory', auth: ['apiKey'] as const };
const agentParams = { agentId: uuidSchema };

/** A stored document, as the knowledge routes answer it. */
const documentSchema = z.object({
  id: z
    .string()
    .describe('Derived from the agent and the text: the same text is the same document.'),
  agentId: z.string(),
  title: z
    .string()
    .describe('The file name, the JSON `title`, or the start of a character knowledge string.'),
  contentType: z.string(),
  source: z.string().describe('`upload` or `character`.'),
  size: z.number().int(),
  fragmentCount: z.number().int(),
  hash: z.string().describe('sha256 of the text, hex.'),
  createdAt: z.number().describe('epoch milliseconds'),
});

/**
 * Knowledge (`knowledge/knowledge-routes.ts`): documents an agent answers from, split into fragments that are
 * recalled for each message. See docs/memory.md, "Knowledge".
 */
export const KNOWLEDGE_OPERATIONS: readonly DocumentedOperation[] = [
  {
    ...base,
    method: 'post',
    path: '/api/agents/:agentId/knowledge',
    operationId: 'addKnowledge',
    summary: 'Add documents an agent answers from',
    description:
      'A `multipart/form-data` body with one or more files (any field name; at most ' +
      '`KNOWLEDGE_MAX_FILES_PER_REQUEST`, 10 by default, each at most `KNOWLEDGE_MAX_DOCUMENT_BYTES`, 5 MiB), or ' +
      'a JSON body `{ title, text, contentType }`. Text, Markdown, HTML (read as text), JSON and PDF (415 for ' +
      'other types). Each document is split into overlapping fragments that are embedded and searched for each ' +
      'later message. All files of a request are stored or none: a file over a limit (413, naming the setting), ' +
      'of another type (415) or unreadable (400) stores nothing. A text the agent holds already is answered as ' +
      'it is (200, `created: false`), not stored again.',
    pathParams: agentParams,
    body: knowledgeJsonBodySchema,
    multipartFile: 'The files (one or more; fields `files` or `file`).',
    responses: {
      201: {
        description: 'Stored (at least one document is new).',
        json: apiSuccessSchema(
          z.object({ documents: z.array(documentSchema.extend({ created: z.boolean() })) }),
        ),
      },
      200: {
        description: 'Every document was stored already.',
        json: apiSuccessSchema(
          z.object({ documents: z.array(documentSchema.extend({ created: z.boolean() })) }),
        ),
      },
    },
    errors: [
      'BAD_REQUEST',
      'NOT_FOUND',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'UNAVAILABLE',
    ],
  },
  {
    ...base,
    method: 'get',
    path: '/api/agents/:agentId/knowledge',
    operationId: 'listKnowledge',
    summary: "An agent's documents",
    description: 'Newest first, without their text (uploaded and from the character).',
    pathParams: agentParams,
    query: z.object({
      limit: z.number().int().min(1).max(1000).optional(),
      offset: z.number().int().min(0).optional(),
    }),
    responses: {
      200: {
        description: 'The documents.',
        json: apiSuccessSchema(z.object({ documents: z.array(documentSchema) })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/agents/:agentId/knowledge/:documentId',
    operationId: 'getKnowledgeDocument',
    summary: 'One document, with its text',
    pathParams: { ...agentParams, documentId: uuidSchema },
    responses: {
      200: {
        description: 'The document and its plain text (HTML and PDF as extracted).',
        json: apiSuccessSchema(documentSchema.extend({ text: z.string() })),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'delete',
    path: '/api/agents/:agentId/knowledge/:documentId',
    operationId: 'deleteKnowledgeDocument',
    summary: 'Delete a document and its fragments',
    description: 'Gone from listings and from every later prompt.',
    pathParams: { ...agentParams, documentId: uuidSchema },
    responses: {
      200: { description: 'Deleted.', json: apiSuccessSchema(z.object({ deleted: z.string() })) },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
];
