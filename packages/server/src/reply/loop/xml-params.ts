import { deeperThan, MAX_ARGUMENT_DEPTH } from '../../models/argument-depth';

/** Most characters of a step's answer searched for `<params>`. */
export const MAX_PARAMS_SOURCE = 1024 * 1024;

/**
 * Most tags read inside `<params>` (opening and closing) at each level: past them the rest of `<params>` is not
 * protocol and gives no arguments (a call whose arguments were not read fails its schema, which the model sees).
 */
export const MAX_PARAMS_TAGS = 4096;

/** Longest tag name read, as elizaOS's protocol names actions and parameters. */
const MAX_NAME = 128;

/** Counts the parser's steps, for tests that prove it linear: each character and each tag adds one. */
export interface ParseMeter {
  steps: number;
  /** Tags read per level (default {@link MAX_PARAMS_TAGS}; a test lifts it to see the parser's own bound). */
  maxTags?: number;
}

/**
 * The arguments a model gave its actions in elizaOS's XML protocol, by action name (upper-cased):
 * `<params><CALCULATE><expression>2+2</expression></CALCULATE></params>`, or the same as JSON inside `<params>`
 * (`{"CALCULATE": {"expression": "2+2"}}`). Values are text (a JSON value where one parses as an object or
 * array); the action's schema coerces them. Anything unreadable gives no arguments; nothing here throws.
 *
 * Linear in the answer: the tags are read in one pass (each character once per level, two levels) and an
 * element's closing tag is found through a per-name list of closing tags walked forward only, so 100,000
 * unclosed tags cost 100,000 steps, not 100,000 scans to the end (as the backtracking regular expression did).
 */
export function parseXmlParams(
  answer: string,
  meter: ParseMeter = { steps: 0 },
): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>();
  try {
    const source = answer.slice(0, MAX_PARAMS_SOURCE);
    const start = source.indexOf('<params>');
    const end = source.indexOf('</params>', start);
    if (start === -1 || end === -1) return found;
    meter.steps += end;
    const body = unwrapCdata(source.slice(start + '<params>'.length, end)).trim();
    if (body.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(body);
        for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
          // Too deep to run: the call gets no arguments (and fails its schema, which the model sees).
          if (isRecord(value) && !deeperThan(value, MAX_ARGUMENT_DEPTH)) {
            found.set(name.toUpperCase(), value);
          }
        }
      } catch {
        // Not JSON after all: no arguments.
      }
      return found;
    }
    const maxTags = meter.maxTags ?? MAX_PARAMS_TAGS;
    // A budget per level: the actions, then their fields together.
    const fieldBudget = { tags: maxTags };
    for (const action of elements(body, 0, body.length, meter, { tags: maxTags })) {
      const args: Record<string, unknown> = {};
      for (const field of elements(body, action.from, action.to, meter, fieldBudget)) {
        args[field.name] = toValue(body.slice(field.from, field.to));
      }
      found.set(action.name.toUpperCase(), args);
    }
  } catch {
    // Whatever went wrong reading the model's markup, it is the model's: no arguments, never a failed reply.
    found.clear();
  }
  return found;
}

interface Tag {
  closing: boolean;
  name: string;
  /** Where `<` is. */
  start: number;
  /** Just after `>`. */
  end: number;
}

interface Element {
  name: string;
  /** The content: `text.slice(from, to)`. */
  from: number;
  to: number;
}

/**
 * The elements `<name>…</name>` of `text` between `from` and `to`, left to right, not overlapping: an opening
 * tag pairs with the first closing tag of its name after it (`</name>`, whitespace allowed before `>`); an
 * opening tag that has none is skipped. The same as matching `/<([A-Za-z_][\w.-]{0,127})>([\s\S]*?)<\/\1\s*>/g`,
 * in linear time.
 */
function elements(
  text: string,
  from: number,
  to: number,
  meter: ParseMeter,
  budget: { tags: number },
): Element[] {
  const tags = readTags(text, from, to, meter, budget);
  // Every closing tag's index in `tags`, by name, in order; a cursor per name only moves forward.
  const closings = new Map<string, { at: number[]; next: number }>();
  tags.forEach((tag, index) => {
    if (!tag.closing) return;
    const entry = closings.get(tag.name) ?? { at: [], next: 0 };
    entry.at.push(index);
    closings.set(tag.name, entry);
  });
  const found: Element[] = [];
  let after = from;
  for (let index = 0; index < tags.length; index += 1) {
    meter.steps += 1;
    const tag = tags[index]!;
    if (tag.closing || tag.start < after) continue;
    const entry = closings.get(tag.name);
    if (entry === undefined) continue;
    while (entry.next < entry.at.length && entry.at[entry.next]! < index) {
      meter.steps += 1;
      entry.next += 1;
    }
    if (entry.next === entry.at.length) continue;
    const closing = tags[entry.at[entry.next]!]!;
    found.push({ name: tag.name, from: tag.end, to: closing.start });
    after = closing.end;
  }
  return found;
}

const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[\w.-]/;
const SPACE = /\s/;

/** The tags of `text` between `from` and `to`, in one pass, within the budget. */
function readTags(
  text: string,
  from: number,
  to: number,
  meter: ParseMeter,
  budget: { tags: number },
): Tag[] {
  const tags: Tag[] = [];
  let i = from;
  while (i < to && budget.tags > 0) {
    meter.steps += 1;
    if (text.charCodeAt(i) !== 0x3c /* < */) {
      i += 1;
      continue;
    }
    const start = i;
    i += 1;
    const closing = text.charCodeAt(i) === 0x2f; /* / */
    if (closing) i += 1;
    const nameStart = i;
    // An opening name starts with a letter or `_`; a closing one is compared with opening names only.
    if (!closing && !(i < to && NAME_START.test(text.charAt(i)))) continue;
    while (i < to && i - nameStart <= MAX_NAME && NAME_PART.test(text.charAt(i))) {
      meter.steps += 1;
      i += 1;
    }
    const name = text.slice(nameStart, i);
    if (name === '' || name.length > MAX_NAME) continue;
    if (closing) {
      while (i < to && SPACE.test(text.charAt(i))) {
        meter.steps += 1;
        i += 1;
      }
    }
    if (i >= to || text.charCodeAt(i) !== 0x3e /* > */) continue;
    i += 1;
    tags.push({ closing, name, start, end: i });
    budget.tags -= 1;
  }
  return tags;
}

function toValue(text: string): unknown {
  const value = decodeEntities(unwrapCdata(text).trim());
  if (value.startsWith('{') || value.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      // Nested deeper than any call may be: kept as the text it came as (nothing after overflows on it).
      return deeperThan(parsed, MAX_ARGUMENT_DEPTH) ? value : parsed;
    } catch {
      return value;
    }
  }
  return value;
}

const CDATA_OPEN = '<![CDATA[';
const CDATA_CLOSE = ']]>';

/** `<![CDATA[…]]>` sections as their content, in one pass (a lazy regular expression rescans per unclosed one). */
function unwrapCdata(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = text.indexOf(CDATA_OPEN, from);
    if (open === -1) break;
    const close = text.indexOf(CDATA_CLOSE, open + CDATA_OPEN.length);
    // No closing after this one: none after any later one either.
    if (close === -1) break;
    out += text.slice(from, open) + text.slice(open + CDATA_OPEN.length, close);
    from = close + CDATA_CLOSE.length;
  }
  return from === 0 ? text : out + text.slice(from);
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos);/g, (_, name: string) => ENTITIES[name]!);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
