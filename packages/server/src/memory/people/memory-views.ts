import { z } from 'zod';
import type { MemoryRecord } from '../memory-store';

/** elizaOS's table names: letters, digits, `_` and `-`, at most 64. */
export const tableNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -');

/** A memory as the API shows it: elizaOS's `Memory` fields, the embedding only when asked for. */
export function memoryView(record: MemoryRecord, includeEmbedding = false) {
  const { embedding, similarity: _similarity, ...rest } = record;
  return includeEmbedding && embedding ? { ...rest, embedding } : rest;
}
