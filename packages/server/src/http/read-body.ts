import { parseOrThrow, ParleyError } from '@parley/core';
import type { Context } from 'hono';
import type { z } from 'zod';

/** Reads a JSON body and validates it; bad JSON and schema failures are 400s with a clear message. */
export async function readJsonBody<T extends z.ZodType>(
  c: Context,
  schema: T,
  what = 'body',
): Promise<z.output<T>> {
  let value: unknown;
  try {
    value = await c.req.json();
  } catch (error) {
    if (ParleyError.isInstance(error)) throw error;
    throw new ParleyError('BAD_REQUEST', 'Request body must be valid JSON');
  }
  return parseOrThrow(schema, value, what);
}
