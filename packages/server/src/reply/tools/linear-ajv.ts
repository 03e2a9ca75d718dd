import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation';
import { Ajv, type CodeOptions, type Options } from 'ajv';
import { RE2JS } from 're2js';

type RegExpEngine = NonNullable<CodeOptions['regExp']>;

/** Longest `pattern` (or `patternProperties` key) compiled, in characters; a longer one is refused. */
export const MAX_SCHEMA_PATTERN_LENGTH = 4096;

/** A schema's regular expression that cannot run on the linear-time engine; the tool is refused. */
export class UnsafePatternError extends Error {
  constructor(pattern: string, reason: string) {
    const shown = pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern;
    super(`the pattern ${JSON.stringify(shown)} cannot be checked in linear time (${reason})`);
    this.name = 'UnsafePatternError';
  }
}

/**
 * Ajv's regular-expression engine for every schema that comes from outside the server (MCP servers' tools,
 * plugins' JSON Schema parameters): RE2 (the pure-JS port re2js), whose matching time is linear in the input, so
 * that `pattern: "^(a+)+$"` against `"aaaa…!"` costs microseconds, not the event loop for seconds. A pattern RE2
 * cannot express (backreferences, lookaround) or too long throws {@link UnsafePatternError} when the schema is
 * compiled: the tool is refused at load, never checked with a backtracking engine.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, _flags: string) => {
    if (pattern.length > MAX_SCHEMA_PATTERN_LENGTH) {
      throw new UnsafePatternError(pattern, `longer than ${MAX_SCHEMA_PATTERN_LENGTH} characters`);
    }
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    } catch (error) {
      throw new UnsafePatternError(pattern, error instanceof Error ? error.message : String(error));
    }
    return { test: (input: string) => compiled.test(input) };
  },
  { code: 'linearRegExp' },
);

/**
 * An Ajv whose `pattern`, `patternProperties` and `propertyNames: {pattern}` run on {@link linearRegExp}. No
 * formats are added: `format` is not checked (unknown formats are tolerated with `strict: false`).
 */
export function createLinearAjv(options: Options = {}): Ajv {
  return new Ajv({ strict: false, ...options, code: { ...options.code, regExp: linearRegExp } });
}

/**
 * The MCP SDK's validator (the client checks tools' `outputSchema`, the server elicitation schemas) on the linear
 * engine. A schema that does not compile (a pattern RE2 refuses) gives a validator that refuses every value with
 * the reason: the SDK compiles every listed output schema at once, and one tool's schema must not fail the
 * listing; such a tool is left out before it is offered (`McpToolSet`), this is the backstop.
 */
export class LinearJsonSchemaValidator implements jsonSchemaValidator {
  readonly #ajv = createLinearAjv({ allErrors: true, validateSchema: false });

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let validate: ReturnType<Ajv['compile']>;
    try {
      validate = compileOnce(this.#ajv, schema);
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'the schema does not compile';
      return () => ({ valid: false, data: undefined, errorMessage: reason });
    }
    return (input: unknown) =>
      validate(input)
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: this.#ajv.errorsText(validate.errors) };
  }
}

/**
 * Compiles `schema` without keeping it in Ajv's cache (a Map that never forgets, and a second schema with the
 * same `$id` would not compile): tool lists are read again on every reconnect and list change.
 */
export function compileOnce(ajv: Ajv, schema: Record<string, unknown>): ReturnType<Ajv['compile']> {
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}
