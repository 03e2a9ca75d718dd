import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { deeperThan } from '../../models/argument-depth';

/** How much of a server's tools reaches the model (`DEFAULTS.mcp`). */
export interface McpToolBounds {
  /** Longest tool description (and title), in characters; longer ones are cut with a marker. */
  maxDescriptionChars: number;
  /** Longest `description` or `title` inside a tool's input schema (a parameter's), in characters. */
  maxParameterDescriptionChars: number;
  /** Largest input schema (its JSON, after its descriptions are cut), in characters; a larger tool is left out. */
  maxSchemaChars: number;
  /** Most characters of descriptions and schemas taken from one server in all; the tools past it are left out. */
  maxServerChars: number;
}

/** Deepest input schema taken (JSON Schema's own nesting; deeper is no tool a model could call, only an attack). */
export const MAX_SCHEMA_DEPTH = 32;

/** What was cut or left out of one listing, for one log line. */
export interface BoundReport {
  /** Tools whose description, title or parameter descriptions were cut, with the characters removed. */
  cut: { tool: string; removed: number }[];
  /** Tools left out, with why. */
  left: { tool: string; reason: string }[];
}

/**
 * A server's tools as the model will see them: each description and title cut to its bound with a marker
 * (`… [cut N characters]`), each description inside the input schema to its own; a tool whose schema is still
 * larger than its bound, nested deeper than {@link MAX_SCHEMA_DEPTH}, or past the server's budget is left out.
 * The tools given are not changed.
 */
export function boundTools(
  tools: readonly Tool[],
  bounds: McpToolBounds,
): { tools: Tool[]; report: BoundReport } {
  const report: BoundReport = { cut: [], left: [] };
  const kept: Tool[] = [];
  let spent = 0;
  for (const tool of tools) {
    if (deeperThan(tool.inputSchema, MAX_SCHEMA_DEPTH)) {
      report.left.push({
        tool: tool.name,
        reason: `input schema nested deeper than ${MAX_SCHEMA_DEPTH}`,
      });
      continue;
    }
    let removed = 0;
    const cut = (text: string, limit: number) => {
      const result = cutText(text, limit);
      removed += result.removed;
      return result.text;
    };
    const bounded: Tool = { ...tool };
    if (typeof tool.description === 'string') {
      bounded.description = cut(tool.description, bounds.maxDescriptionChars);
    }
    if (typeof tool.title === 'string') bounded.title = cut(tool.title, bounds.maxDescriptionChars);
    bounded.inputSchema = cutDescriptions(tool.inputSchema, (text) =>
      cut(text, bounds.maxParameterDescriptionChars),
    ) as Tool['inputSchema'];
    const schemaChars = JSON.stringify(bounded.inputSchema).length;
    if (schemaChars > bounds.maxSchemaChars) {
      report.left.push({
        tool: tool.name,
        reason: `input schema of ${schemaChars} characters (at most ${bounds.maxSchemaChars})`,
      });
      continue;
    }
    const size = schemaChars + (bounded.description?.length ?? 0) + (bounded.title?.length ?? 0);
    if (spent + size > bounds.maxServerChars) {
      report.left.push({
        tool: tool.name,
        reason: `the server's tools are over ${bounds.maxServerChars} characters`,
      });
      continue;
    }
    spent += size;
    if (removed > 0) report.cut.push({ tool: tool.name, removed });
    kept.push(bounded);
  }
  return { tools: kept, report };
}

/** Room kept for the marker: any count of characters fits. */
const MARKER_ROOM = 48;

/**
 * `text` within `limit` characters, the end replaced by a marker saying how many were cut
 * (`… [cut 73728 characters]`), and that count.
 */
export function cutText(text: string, limit: number): { text: string; removed: number } {
  if (text.length <= limit) return { text, removed: 0 };
  let end = Math.max(0, limit - MARKER_ROOM);
  // Never half a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  const removed = text.length - end;
  return { text: `${text.slice(0, end)} … [cut ${removed} characters]`, removed };
}

/** A copy of `schema` with every `description` and `title` string passed through `cut` (depth already bounded). */
function cutDescriptions(schema: unknown, cut: (text: string) => string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => cutDescriptions(item, cut));
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] =
      (key === 'description' || key === 'title') && typeof value === 'string'
        ? cut(value)
        : cutDescriptions(value, cut);
  }
  return copy;
}
