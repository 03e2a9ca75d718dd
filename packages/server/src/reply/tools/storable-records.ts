import { findJsonProblem, MAX_JSON_LENGTH, toStorableText } from '@parley/core';
import type { ToolCallRecord } from '../parts/reply-part';
import { capText } from './tool-output';

/** Room kept in a stored `raw_message` for everything but its tool calls (text, thought, actions, keys). */
const RESERVED = 8 * 1024;

/**
 * `value` as storage and every client can take it: as it is when it is storable JSON (no NUL, no lone surrogate,
 * bounded depth and size), else its JSON (or text) made storable and cut to `limit` characters.
 */
export function toStorableValue(value: unknown, limit: number): unknown {
  if (value === undefined || !findJsonProblem(value, { maxLength: limit })) return value;
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  } catch {
    // A cycle or a BigInt: nothing storable to show.
    text = '';
  }
  return capText(toStorableText(text), limit);
}

/**
 * A reply's calls as they are stored (`raw_message.toolCalls`): within what one stored message may hold beside
 * `textLength` characters of text. When the whole does not fit, every call's input and output are cut to an
 * equal share (as text, with a marker); the clients that followed the reply live got them whole.
 */
export function fitForStorage(records: ToolCallRecord[], textLength: number): ToolCallRecord[] {
  const budget = MAX_JSON_LENGTH - RESERVED - 2 * textLength;
  if (records.length === 0 || JSON.stringify(records).length <= budget) return records;
  const share = Math.max(64, Math.floor(budget / records.length / 2) - 256);
  return records.map((record) => ({
    ...record,
    input: fit(record.input, share),
    ...(record.error === undefined ? { output: fit(record.output, share) } : {}),
  }));
}

function fit(value: unknown, share: number): unknown {
  const json = JSON.stringify(value ?? null);
  return json.length <= share ? value : capText(json, share);
}
