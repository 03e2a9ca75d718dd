import { describe, expect, it } from 'vitest';
import { toolCallsOf } from './to-chat-message';
import { outputText, prettyJson } from './tool-card';

describe('what a tool card shows', () => {
  it('shows an output’s text when it has one, a string as it is, anything else as pretty JSON', () => {
    expect(outputText({ text: '12 * 7 = 84', values: { result: 84 } })).toEqual({
      text: '12 * 7 = 84',
      json: false,
    });
    expect(outputText('plain')).toEqual({ text: 'plain', json: false });
    expect(outputText({ values: { result: 84 } })).toEqual({
      text: '{\n  "values": {\n    "result": 84\n  }\n}',
      json: true,
    });
    expect(outputText({ text: '' }).json).toBe(true);
    expect(outputText([1, 2]).text).toBe('[\n  1,\n  2\n]');
    expect(outputText(null).text).toBe('null');
  });

  it('writes any value without throwing', () => {
    expect(prettyJson(undefined)).toBe('(none)');
    expect(prettyJson({ expression: '12 * 7' })).toBe('{\n  "expression": "12 * 7"\n}');
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(prettyJson(loop)).toBe('(cannot be shown as JSON)');
    expect(prettyJson(() => 1)).toBe('(function)');
  });

  it('reads recorded tool calls, skipping what is not one', () => {
    expect(toolCallsOf(undefined)).toBeUndefined();
    expect(toolCallsOf([])).toBeUndefined();
    expect(toolCallsOf('nope')).toBeUndefined();
    const call = { toolCallId: 'c1', toolName: 'CALCULATE', input: {}, output: { text: '1' } };
    expect(toolCallsOf([call, null, { toolName: 'X' }, 3])).toEqual([call]);
  });
});
