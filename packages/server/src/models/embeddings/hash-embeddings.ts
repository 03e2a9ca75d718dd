import type { EmbeddingProvider } from './embedding-provider';

/** Length of the offline embedder's vectors (the size of common small sentence models, e.g. all-MiniLM-L6-v2). */
export const HASH_EMBEDDING_DIMENSIONS = 384;

/** Characters of one text the offline embedder reads; the rest is ignored (it is a bag of features). */
const MAX_CHARS = 32 * 1024;
/** Weight of a whole word against one of its character trigrams. */
const WORD_WEIGHT = 1;
const TRIGRAM_WEIGHT = 0.5;

/** FNV-1a, 32 bits, over UTF-16 code units: fast, stable across versions and platforms. */
function fnv1a(text: string, seed: number): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Adds `weight` to the feature's hashed bucket, with a hashed sign (so collisions cancel rather than pile up). */
function addFeature(vector: Float64Array, feature: string, weight: number): void {
  const hash = fnv1a(feature, 0);
  const bucket = hash % vector.length;
  vector[bucket]! += (hash & 0x80000000) === 0 ? weight : -weight;
}

/** Lower-cased words of letters and digits (any script), as the full-text search also splits them. */
export function wordsOf(text: string): string[] {
  return (
    text
      .slice(0, MAX_CHARS)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * One text's vector: its words and their character trigrams (a word padded with spaces), hashed into
 * `dimensions` buckets with signs, sub-linear term weights, L2-normalised. An empty text gives the zero vector.
 */
export function hashEmbedding(text: string, dimensions = HASH_EMBEDDING_DIMENSIONS): number[] {
  const counts = new Map<string, number>();
  for (const word of wordsOf(text)) {
    counts.set(`w:${word}`, (counts.get(`w:${word}`) ?? 0) + WORD_WEIGHT);
    const padded = ` ${word} `;
    for (let index = 0; index + 3 <= padded.length; index += 1) {
      const trigram = `t:${padded.slice(index, index + 3)}`;
      counts.set(trigram, (counts.get(trigram) ?? 0) + TRIGRAM_WEIGHT);
    }
  }
  const vector = new Float64Array(dimensions);
  // 1 + log(tf): a word said ten times is not ten times the meaning.
  for (const [feature, count] of counts) addFeature(vector, feature, 1 + Math.log(1 + count));
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  return Array.from(vector, (value) => (norm === 0 ? 0 : value / norm));
}

/**
 * The offline embedder: feature hashing of words and character trigrams into 384 dimensions, L2-normalised.
 * Deterministic, no network, no download, microseconds per text. It measures lexical overlap (shared words,
 * shared spellings: "deploy" ~ "deployment"), not meaning ("car" is not near "automobile"); the memory store's
 * hybrid ranking adds full-text search to it. Point `EMBEDDING_MODEL` at a real embedding model for semantics.
 */
export function createHashEmbeddings(): EmbeddingProvider {
  return {
    name: 'offline-hash',
    model: `parley-hash-v1-${HASH_EMBEDDING_DIMENSIONS}`,
    dimensions: HASH_EMBEDDING_DIMENSIONS,
    embed: (texts) => Promise.resolve(texts.map((text) => hashEmbedding(String(text)))),
    ready: () => Promise.resolve(),
  };
}
