/** Most characters of a step's answer searched for `<params>`. */
export const MAX_PARAMS_SOURCE = 1024 * 1024;

const ELEMENT = /<([A-Za-z_][\w.-]{0,127})>([\s\S]*?)<\/\1\s*>/g;

/**
 * The arguments a model gave its actions in elizaOS's XML protocol, by action name (upper-cased):
 * `<params><CALCULATE><expression>2+2</expression></CALCULATE></params>`, or the same as JSON inside `<params>`
 * (`{"CALCULATE": {"expression": "2+2"}}`). Values are text (a JSON value where one parses as an object or
 * array); the action's schema coerces them. Anything unreadable gives no arguments.
 */
export function parseXmlParams(answer: string): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>();
  const source = answer.slice(0, MAX_PARAMS_SOURCE);
  const start = source.indexOf('<params>');
  const end = source.indexOf('</params>', start);
  if (start === -1 || end === -1) return found;
  const body = unwrapCdata(source.slice(start + '<params>'.length, end)).trim();
  if (body.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(body);
      for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
        if (isRecord(value)) found.set(name.toUpperCase(), value);
      }
    } catch {
      // Not JSON after all: no arguments.
    }
    return found;
  }
  for (const [, name, inner] of body.matchAll(ELEMENT)) {
    const args: Record<string, unknown> = {};
    for (const [, key, value] of inner!.matchAll(ELEMENT)) args[key!] = toValue(value!);
    found.set(name!.toUpperCase(), args);
  }
  return found;
}

function toValue(text: string): unknown {
  const value = decodeEntities(unwrapCdata(text).trim());
  if (value.startsWith('{') || value.startsWith('[')) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

function unwrapCdata(text: string): string {
  return text.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1');
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos);/g, (_, name: string) => ENTITIES[name]!);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
