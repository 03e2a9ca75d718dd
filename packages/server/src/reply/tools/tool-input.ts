import type { ActionParameter, ActionParameters, ParameterSchema } from '@parley/plugin-sdk';
import type { ValidateFunction } from 'ajv';
import { toJSONSchema, type ZodType } from 'zod';
import { compileOnce, createLinearAjv } from './linear-ajv';

/** An action's input, as offered to the model and checked before its handler runs. */
export interface ToolInput {
  /** JSON Schema of the arguments: always an object schema. */
  jsonSchema: Record<string, unknown>;
  /** The checked value (defaults and transforms applied), or what is wrong with it, in words for the model. */
  check(
    value: unknown,
  ): { ok: true; value: Record<string, unknown> } | { ok: false; error: string };
}

/** The input of an action without `parameters`: an empty object, anything else ignored. */
const NO_INPUT: ToolInput = {
  jsonSchema: { type: 'object', properties: {} },
  check: () => ({ ok: true, value: {} }),
};

// One compiler for every action: JSON Schema as models and plugins write it (draft 7 and 2019-style keywords
// models emit, unknown formats tolerated). `coerceTypes` lets the XML protocol's string values ("4") fit numbers.
// Schemas come from MCP servers and plugins: their patterns run on a linear-time engine (a pattern it cannot
// run makes the schema fail to compile, and the tool is refused where it is loaded).
const ajv = createLinearAjv({ allErrors: true, coerceTypes: true, useDefaults: true });

/**
 * The input of an action with `parameters` in any of the three forms a plugin may use: a JSON Schema object, a
 * zod schema (its `safeParse` checks, `z.toJSONSchema` describes), or elizaOS 2.0's list of
 * `{name, description, required, schema}`. Throws for a schema that does not compile (the plugin's error,
 * found when the plugin loads).
 */
export function toToolInput(parameters: ActionParameters | undefined): ToolInput {
  if (parameters === undefined || parameters === null) return NO_INPUT;
  if (Array.isArray(parameters)) return fromJsonSchema(fromParameterList(parameters));
  if (isParameterSchema(parameters)) return fromZod(parameters);
  return fromJsonSchema(parameters as Record<string, unknown>);
}

function isParameterSchema(value: unknown): value is ParameterSchema<Record<string, unknown>> {
  return typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

/** elizaOS 2.0's parameter list as one object schema. */
function fromParameterList(list: readonly ActionParameter[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const parameter of list) {
    properties[parameter.name] = {
      ...(parameter.schema ?? { type: 'string' }),
      ...(parameter.description ? { description: parameter.description } : {}),
    };
    if (parameter.required) required.push(parameter.name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function fromJsonSchema(schema: Record<string, unknown>): ToolInput {
  const jsonSchema = schema.type === undefined ? { type: 'object', ...schema } : schema;
  const validate: ValidateFunction = compileOnce(ajv, jsonSchema);
  return {
    jsonSchema,
    check(value) {
      // The validator fills defaults and coerces in place: it works on a copy of the model's arguments.
      const copy: unknown = structuredClone(value ?? {});
      if (!validate(copy)) return { ok: false, error: ajv.errorsText(validate.errors) };
      if (typeof copy !== 'object' || copy === null || Array.isArray(copy)) {
        return { ok: false, error: 'the arguments must be an object' };
      }
      return { ok: true, value: copy as Record<string, unknown> };
    },
  };
}

function fromZod(schema: ParameterSchema<Record<string, unknown>>): ToolInput {
  let jsonSchema: Record<string, unknown>;
  try {
    jsonSchema = toJSONSchema(schema as unknown as ZodType, { io: 'input' });
  } catch {
    // A zod 3 schema, or one zod cannot describe: the model is told only that it takes an object.
    jsonSchema = { type: 'object' };
  }
  delete jsonSchema.$schema;
  return {
    jsonSchema,
    check(value) {
      const result = schema.safeParse(value ?? {});
      if (result.success) return { ok: true, value: result.data };
      return { ok: false, error: describeIssues(result.error) };
    },
  };
}

/** zod's issues as one line: `path: message; …`. */
function describeIssues(error: { issues?: readonly unknown[]; message?: string }): string {
  const issues = (error.issues ?? []) as { path?: unknown[]; message?: string }[];
  if (issues.length === 0) return error.message ?? 'invalid input';
  return issues
    .slice(0, 10)
    .map((issue) => {
      const path = (issue.path ?? []).map(String).join('.');
      return path === '' ? (issue.message ?? 'invalid') : `${path}: ${issue.message ?? 'invalid'}`;
    })
    .join('; ');
}
