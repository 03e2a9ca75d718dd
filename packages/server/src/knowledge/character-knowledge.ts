import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Character } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { KnowledgeService, NewDocument, PreparedDocument } from './knowledge-service';
import { extractText, kindOf } from './knowledge-text';

/** Files one `{directory}` entry reads at most (deeper or further files are skipped with a warning). */
const MAX_DIRECTORY_DEPTH = 8;

/** One entry of a character's `knowledge`, as elizaOS writes them. */
type Entry =
  | { kind: 'text'; text: string }
  | { kind: 'path'; path: string }
  | { kind: 'directory'; directory: string };

/**
 * The entries of a character's `knowledge` in every elizaOS shape: a string (the knowledge itself; elizaOS's
 * `Path: x\n…` prefix names its title), `{ path }`, `{ directory }` (`shared` is accepted and ignored: each agent
 * has its own copy), and the 1.7 protobuf shape `{ item: { case: 'path' | 'directory' | 'text', value } }`.
 * Anything else is skipped (the caller logs it).
 */
export function knowledgeEntries(knowledge: readonly unknown[] | undefined): {
  entries: Entry[];
  skipped: number;
} {
  const entries: Entry[] = [];
  let skipped = 0;
  for (const raw of knowledge ?? []) {
    let item: unknown = raw;
    if (item !== null && typeof item === 'object' && 'item' in item) {
      const inner = (item as { item?: { case?: unknown; value?: unknown } }).item;
      const value = inner?.value;
      if (inner?.case === 'path') item = typeof value === 'string' ? { path: value } : value;
      else if (inner?.case === 'directory')
        item = typeof value === 'string' ? { directory: value } : value;
      else item = value;
    }
    if (typeof item === 'string' && item.trim() !== '') entries.push({ kind: 'text', text: item });
    else if (
      item !== null &&
      typeof item === 'object' &&
      typeof (item as { path?: unknown }).path === 'string'
    ) {
      entries.push({ kind: 'path', path: (item as { path: string }).path });
    } else if (
      item !== null &&
      typeof item === 'object' &&
      typeof (item as { directory?: unknown }).directory === 'string'
    ) {
      entries.push({ kind: 'directory', directory: (item as { directory: string }).directory });
    } else skipped += 1;
  }
  return { entries, skipped };
}

/**
 * A path named by a character, inside the knowledge root (`KNOWLEDGE_PATH`) and only there: absolute paths,
 * `..` and symbolic links that lead out are refused, so a character created over HTTP reads no other file of the
 * server's.
 */
async function insideRoot(root: string, name: string): Promise<string | undefined> {
  if (isAbsolute(name)) return undefined;
  const base = await realpath(resolve(root)).catch(() => undefined);
  if (!base) return undefined;
  const target = await realpath(resolve(base, name)).catch(() => undefined);
  if (!target) return undefined;
  const rel = relative(base, target);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('..'))
    ? target
    : undefined;
}

async function filesUnder(
  directory: string,
  depth: number,
  out: string[],
  max: number,
): Promise<void> {
  if (depth > MAX_DIRECTORY_DEPTH || out.length >= max) return;
  const names = (await readdir(directory)).sort();
  for (const name of names) {
    if (out.length >= max || name.startsWith('.')) continue;
    const path = join(directory, name);
    const stat = await lstat(path);
    if (stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) await filesUnder(path, depth + 1, out, max);
    else if (stat.isFile() && kindOf(undefined, name)) out.push(path);
  }
}

/** Reads one file of the knowledge root as a document; undefined (with a warning) when it cannot be. */
async function fileDocument(
  path: string,
  title: string,
  maxBytes: number,
  logger: Pick<Logger, 'warn'>,
): Promise<NewDocument | undefined> {
  const stat = await lstat(path);
  if (stat.size > maxBytes) {
    logger.warn(
      { path: title, limit: maxBytes },
      'knowledge: a file over KNOWLEDGE_MAX_DOCUMENT_BYTES was skipped',
    );
    return undefined;
  }
  const kind = kindOf(undefined, path);
  if (!kind) return undefined;
  const bytes = new Uint8Array(await readFile(path));
  const text = await extractText(bytes, kind, title);
  return {
    title,
    text,
    contentType:
      kind === 'pdf'
        ? 'application/pdf'
        : `text/${kind === 'markdown' ? 'markdown' : kind === 'html' ? 'html' : 'plain'}`,
    source: 'character',
    size: bytes.length,
  };
}

/**
 * Stores a character's knowledge for its agent: each string, file and supported file of each directory (under
 * `KNOWLEDGE_PATH`) becomes a document. Documents already stored (same text) are not embedded again, so a
 * restart costs a hash per document. A bad entry is logged and skipped; the others are stored.
 */
export async function loadCharacterKnowledge(
  service: KnowledgeService,
  agentId: string,
  character: Character,
  logger: Pick<Logger, 'info' | 'warn'>,
  signal?: AbortSignal,
): Promise<number> {
  const { entries, skipped } = knowledgeEntries((character as { knowledge?: unknown[] }).knowledge);
  if (skipped > 0)
    logger.warn(
      { agentId, skipped },
      'knowledge: character knowledge entries of no known shape were skipped',
    );
  if (entries.length === 0) return 0;
  const { settings } = service;
  const documents: NewDocument[] = [];
  for (const entry of entries) {
    if (documents.length >= settings.maxDocumentsPerAgent) break;
    try {
      if (entry.kind === 'text') {
        const titled = /^Path: (.+?)\r?\n/.exec(entry.text);
        const title = titled ? titled[1]!.trim() : entry.text.trim().split('\n')[0]!.slice(0, 60);
        documents.push({ title, text: entry.text, contentType: 'text/plain', source: 'character' });
        continue;
      }
      const name = entry.kind === 'path' ? entry.path : entry.directory;
      const path = await insideRoot(settings.root, name);
      if (!path) {
        logger.warn(
          { agentId, path: name },
          'knowledge: a path outside KNOWLEDGE_PATH (or missing) was skipped',
        );
        continue;
      }
      const files: string[] = [];
      if (entry.kind === 'directory')
        await filesUnder(path, 0, files, settings.maxDocumentsPerAgent - documents.length);
      else files.push(path);
      for (const file of files) {
        const document = await fileDocument(
          file,
          relative(resolve(settings.root), file) || name,
          settings.maxDocumentBytes,
          logger,
        );
        if (document) documents.push(document);
      }
    } catch (error) {
      logger.warn(
        { agentId, err: error },
        'knowledge: a character knowledge entry could not be read and was skipped',
      );
    }
  }
  const prepared: PreparedDocument[] = [];
  for (const document of documents) {
    try {
      prepared.push(service.prepare(agentId, document));
    } catch (error) {
      logger.warn(
        { agentId, title: document.title, err: error },
        'knowledge: a character document was skipped',
      );
    }
  }
  const results = [];
  // One at a time, so that one bad document (an embedder refusing it) does not take the others with it.
  for (const document of prepared) {
    if (signal?.aborted) break;
    try {
      results.push(...(await service.addAll(agentId, [document], signal)));
    } catch (error) {
      logger.warn(
        { agentId, title: document.title, err: error },
        'knowledge: a character document could not be stored',
      );
    }
  }
  const created = results.filter((result) => result.created).length;
  logger.info(
    { agentId, documents: results.length, embedded: created },
    `knowledge: ${character.name ?? agentId}'s ${results.length} character documents ready (${created} new)`,
  );
  return created;
}

/** A stable key of a character's knowledge, so that an unchanged character is not read again by this process. */
export function knowledgeKey(agentId: string, knowledge: unknown): string {
  return createHash('sha256')
    .update(`${agentId}:${JSON.stringify(knowledge ?? null)}`)
    .digest('hex');
}
