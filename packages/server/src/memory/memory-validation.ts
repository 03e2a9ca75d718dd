import { ParleyError } from '@parley/core';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TABLE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Longest room, entity or world id (elizaOS's are UUIDs; Parley's authors may be other text). */
const MAX_ID = 200;
/** Largest content or metadata of one memory, as JSON. */
export const MAX_MEMORY_JSON = 256 * 1024;

const bad = (message: string) => new ParleyError('BAD_REQUEST', message);

export const isUuid = (value: unknown): value is string =>
  typeof value === 'string' && UUID.test(value);

export function checkUuid(value: unknown, what: string): string {
  if (!isUuid(value)) throw bad(`${what} must be a UUID`);
  return value.toLowerCase();
}

export function checkTableName(value: unknown): string {
  if (typeof value !== 'string' || !TABLE_NAME.test(value)) {
    throw bad('tableName must be 1 to 64 letters, digits, "_" or "-"');
  }
  return value;
}

export function checkId(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_ID) {
    throw bad(`${what} must be a non-empty string of at most ${MAX_ID} characters`);
  }
  return value;
}

export function checkJson(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw bad(`${what} must be an object`);
  }
  const size = JSON.stringify(value).length;
  if (size > MAX_MEMORY_JSON)
    throw bad(`${what} is larger than ${MAX_MEMORY_JSON} characters as JSON`);
  return value as Record<string, unknown>;
}

/** A vector of the store's length, of finite numbers; a clear BAD_REQUEST otherwise. */
export function checkEmbedding(value: unknown, dimensions: number): number[] {
  if (
    !Array.isArray(value) ||
    !value.every((item) => typeof item === 'number' && Number.isFinite(item))
  ) {
    throw bad('embedding must be an array of finite numbers');
  }
  if (dimensions > 0 && value.length !== dimensions) {
    throw bad(
      `embedding has ${value.length} dimensions; this server's embedding model gives ${dimensions}`,
    );
  }
  if (value.length === 0 || value.length > 16_000)
    throw bad('embedding must have 1 to 16000 dimensions');
  return value as number[];
}

/** A whole number within [min, max], else `fallback` when absent; BAD_REQUEST when out of range. */
export function checkCount(value: unknown, fallback: number, max: number, what: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw bad(`${what} must be a whole number from 0 to ${max}`);
  }
  return value;
}
