import fc from 'fast-check';

/** Markup the extractors care about, whole and cut short, plus unrelated tags. */
const TAGS = [
  '<response>',
  '</response>',
  '<thought>',
  '</thought>',
  '<actions>',
  '</actions>',
  '<text>',
  '</text>',
  '<tag>',
  '</tag>',
  '<b>',
  '</b>',
  '<te',
  '</tex',
  '</actions',
  '<thou',
  '<text ',
  '<TEXT>',
] as const;

/** Characters that tend to break naive parsers: markup, entities, escapes, astral characters. */
const TRICKY = [
  '<',
  '>',
  '/',
  '&',
  '&amp;',
  '&lt;',
  '"',
  '\\',
  '\\u00e9',
  '😀',
  '👍🏽',
  '𝄞',
  ' ',
  '\n',
  'REPLY',
  ',',
  '{',
  '}',
] as const;

/** Short free text: any code points (never half a surrogate pair) and tricky characters. */
export const textArbitrary = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom(...TRICKY)), {
    maxLength: 12,
  })
  .map((parts) => parts.join(''));

/** A document made of random markup and text, well-formed UTF-16. */
export const markupDocumentArbitrary = fc
  .array(fc.oneof(textArbitrary, fc.constantFrom(...TAGS)), { maxLength: 24 })
  .map((parts) => parts.join(''));

/** Cut positions for {@link splitAt}; many small numbers, so that cuts land inside tags and pairs. */
export const cutsArbitrary = fc.array(fc.nat({ max: 400 }), { maxLength: 40 });

/** The content of an `<actions>` tag. */
export const actionsArbitrary = fc.constantFrom(
  'REPLY',
  ' REPLY ',
  '\nREPLY\n',
  'REPLY,',
  'REPLY, FOLLOW_ROOM',
  'IGNORE',
  'reply',
  '',
);

/** Text that cannot close the field it sits in. */
export const fieldTextArbitrary = textArbitrary.map((text) => text.replaceAll('</', '<'));

/** A document in the action-aware format, with optional parts and noise around it. */
export const responseDocumentArbitrary = fc
  .record({
    before: fc.constantFrom('', ' ', '\n', 'Sure! '),
    thought: fc.option(fieldTextArbitrary),
    actions: fc.option(actionsArbitrary),
    text: fieldTextArbitrary,
    closed: fc.boolean(),
  })
  .map(({ before, thought, actions, text, closed }) => ({
    document:
      `${before}<response>` +
      (thought === null ? '' : `<thought>${thought}</thought>`) +
      (actions === null ? '' : `<actions>${actions}</actions>`) +
      `<text>${text}` +
      (closed ? '</text></response>' : ''),
    thought,
    actions,
    text,
  }));

/**
 * Writes a string as a JSON string literal, escaping each code unit where `escapeUnit(index)` says so (as `\uXXXX`
 * or its short form), so that escapes of every kind land on chunk boundaries.
 */
export function toJsonString(value: string, escapeUnit: (index: number) => boolean): string {
  let literal = '"';
  for (let index = 0; index < value.length; index += 1) {
    const unit = value.charAt(index);
    const code = value.charCodeAt(index);
    const mustEscape = unit === '"' || unit === '\\' || code < 0x20;
    if (!mustEscape && !escapeUnit(index)) literal += unit;
    else if (escapeUnit(index + 1) && mustEscape) literal += JSON.stringify(unit).slice(1, -1);
    else literal += `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return `${literal}"`;
}

/** A JSON document with a top-level "text" field among other members, written with random escapes. */
export const jsonDocumentArbitrary = fc
  .record({
    text: fc.oneof(textArbitrary, fc.string({ unit: 'binary', maxLength: 30 })),
    before: fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })), {
      maxLength: 3,
    }),
    after: fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })), {
      maxLength: 2,
    }),
    escapes: fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }),
    inArray: fc.boolean(),
    space: fc.constantFrom('', ' ', '\n  '),
  })
  .map(({ text, before, after, escapes, inArray, space }) => {
    const escapeUnit = (index: number) => escapes[index % escapes.length]!;
    const members = [
      ...before.filter(([key]) => key !== 'text').map(([key, value]) => [key, value] as const),
      ['text', text] as const,
      ...after.map(([key, value]) => [key, value] as const),
    ].map(
      ([key, value]) =>
        `${toJsonString(key, escapeUnit)}${space}:${space}` +
        (key === 'text' && typeof value === 'string'
          ? toJsonString(value, escapeUnit)
          : JSON.stringify(value)),
    );
    const object = `{${space}${members.join(`,${space}`)}${space}}`;
    return { document: inArray ? `[1,${space}{"a":"text"},${object}]` : object, text };
  });
