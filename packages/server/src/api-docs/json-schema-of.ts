import { z } from 'zod';

/** A JSON Schema object, as OpenAPI 3.1 and AsyncAPI 3 embed it. */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1; draft-07 for AsyncAPI) of a zod schema, without the `$schema` key that
 * a schema embedded in a document must not repeat. `io: 'input'` describes what a caller may send (defaults
 * optional), `'output'` what the server answers.
 */
export function jsonSchemaOf(
  schema: z.ZodType,
  io: 'input' | 'output',
  target: 'draft-2020-12' | 'draft-07' = 'draft-2020-12',
): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target,
    io,
    // Transforms (UUIDs are lower-cased) keep their input shape; nothing here is unrepresentable otherwise.
    unrepresentable: 'any',
  });
  return rest;
}
