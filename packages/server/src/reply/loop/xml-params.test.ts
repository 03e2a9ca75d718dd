import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PARAMS_TAGS, parseXmlParams, type ParseMeter } from './xml-params';

/** The parser this one replaced (a backtracking regular expression), to check the same answers are read. */
const ELEMENT = /<([A-Za-z_][\w.-]{0,127})>([\s\S]*?)<\/\1\s*>/g;
function byRegex(body: string): Map<string, Record<string, string>> {
  const found = new Map<string, Record<string, string>>();
  for (const [, name, inner] of body.matchAll(ELEMENT)) {
    const args: Record<string, string> = {};
    for (const [, key, value] of inner!.matchAll(ELEMENT)) args[key!] = value!.trim();
    found.set(name!.toUpperCase(), args);
  }
  return found;
}

const wrap = (body: string) => `<response><params>${body}</params></response>`;

/** Answers built to make a scanning parser rescan: unclosed tags, nested, CDATA, closings of other names. */
const ADVERSARIES: Record<string, (n: number) => string> = {
  'unclosed tags': (n) => '<a>'.repeat(n),
  'unclosed, distinct names': (n) => Array.from({ length: n }, (_, i) => `<t${i}>`).join(''),
  'nested unclosed in one action': (n) => `<ACT>${'<k>'.repeat(n)}</ACT>`,
  'closings of another name': (n) => `${'<a>'.repeat(n)}${'</b>'.repeat(n)}`,
  'unclosed CDATA': (n) => '<![CDATA['.repeat(n),
  'long names': (n) => `<${'n'.repeat(n)}>`.repeat(8),
  'lone angle brackets': (n) => '<'.repeat(n * 3),
  'open, then every closing at the end': (n) => `${'<a><b>'.repeat(n)}${'</a></b>'.repeat(n)}`,
};

describe('parseXmlParams, the XML protocol parser', () => {
  it.each(Object.entries(ADVERSARIES))(
    '%s: a bounded number of steps per character, at every size',
    (_, build) => {
      for (const n of [1_000, 10_000, 100_000]) {
        const answer = wrap(build(n));
        // No tag budget: the bound is the parser's own, not the cap's.
        const meter: ParseMeter = { steps: 0, maxTags: Infinity };
        parseXmlParams(answer, meter);
        // Each character is read at most once per level (two levels) plus the search for <params>, each tag
        // a constant more: 4 per character bounds it whatever the size.
        expect(meter.steps).toBeLessThanOrEqual(4 * answer.length + 16);
      }
    },
  );

  it('300 KB of <params> and 100,000 unclosed tags: read in linear steps, nothing throws', () => {
    const answer = `<response><actions>ECHO</actions><params>${'<x>'.repeat(100_000)}</params></response>`;
    const meter: ParseMeter = { steps: 0, maxTags: Infinity };
    expect(parseXmlParams(answer, meter)).toEqual(new Map());
    expect(answer.length).toBeGreaterThanOrEqual(300_000);
    expect(meter.steps).toBeLessThanOrEqual(4 * answer.length);
  });

  it('reads what the regular expression read, for any mix of tags, text and whitespace', () => {
    const names = fc.constantFrom('A', 'b', 'ECHO', 'x.y', 'k_1');
    const piece = fc.oneof(
      names.map((name) => `<${name}>`),
      names.map((name) => `</${name}>`),
      names.map((name) => `</${name} >`),
      fc.constantFrom('text', ' ', '\n', '<', '>', '</', '<1a>', '&amp;'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const body = pieces.join('');
        const ours = parseXmlParams(wrap(body));
        const theirs = byRegex(body.trim());
        // Values the old parser gave as text: compare as text (JSON values parse the same in both).
        const asText = new Map(
          [...ours].map(([name, args]) => [
            name,
            Object.fromEntries(
              Object.entries(args).map(([key, value]) => [
                key,
                typeof value === 'string' ? value : JSON.stringify(value),
              ]),
            ),
          ]),
        );
        const decoded = new Map(
          [...theirs].map(([name, args]) => [
            name,
            Object.fromEntries(
              Object.entries(args).map(([key, value]) => [key, value.replaceAll('&amp;', '&')]),
            ),
          ]),
        );
        expect(asText).toEqual(decoded);
      }),
      { numRuns: 500 },
    );
  });

  it('the usual answers are still read: elements, CDATA, entities, JSON', () => {
    expect(
      parseXmlParams(
        wrap(
          '<CALC><expression>2+2</expression><note><![CDATA[a <b>]]></note></CALC><echo><t>&lt;x&gt;</t ></echo>',
        ),
      ),
    ).toEqual(
      new Map([
        ['CALC', { expression: '2+2', note: 'a <b>' }],
        ['ECHO', { t: '<x>' }],
      ]),
    );
    expect(parseXmlParams(wrap('{"CALC": {"expression": "1"}}'))).toEqual(
      new Map([['CALC', { expression: '1' }]]),
    );
  });

  it('past its tag budget the rest of <params> gives no arguments', () => {
    const filler = '<z>'.repeat(MAX_PARAMS_TAGS);
    expect(parseXmlParams(wrap(`<A><k>1</k></A>${filler}<B><k>2</k></B>`))).toEqual(
      new Map([['A', { k: '1' }]]),
    );
  });
});
