import { describe, expect, it } from 'vitest';
import { extractSignedJson } from './extract-signed-json';

describe('extractSignedJson', () => {
  it('cuts the signed object out byte for byte, braces in strings included', () => {
    const body =
      '{"tcbInfo":{"id":"TDX","note":"a } and a \\" {","levels":[{"x":1}]},"signature":"ab"}';
    expect(extractSignedJson(body, 'tcbInfo')).toBe(
      '{"id":"TDX","note":"a } and a \\" {","levels":[{"x":1}]}',
    );
  });

  it('gives undefined for a missing key or an unterminated object', () => {
    expect(extractSignedJson('{"other":{}}', 'tcbInfo')).toBeUndefined();
    expect(extractSignedJson('{"tcbInfo":{"id":"TDX"', 'tcbInfo')).toBeUndefined();
  });
});
