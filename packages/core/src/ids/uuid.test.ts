import { describe, expect, it } from 'vitest';
import { isRecord } from '../json/is-record';
import { errorCodeOf } from '../errors/codes';
import { ParleyError } from '../errors/parley-error';
import { toStorableText } from '../schemas/common';
import { isUuid, uuidFromBytes } from './uuid';

describe('the small helpers plugins share', () => {
  it('isUuid takes the 8-4-4-4-12 hex form in either case, and nothing else', () => {
    expect(isUuid('3f2e1d0c-9b8a-4f7e-8d6c-5b4a39281706')).toBe(true);
    expect(isUuid('3F2E1D0C-9B8A-4F7E-8D6C-5B4A39281706')).toBe(true);
    for (const value of [
      '3f2e1d0c9b8a4f7e8d6c5b4a39281706',
      '3f2e1d0c-9b8a-4f7e-8d6c-5b4a3928170',
      ' 3f2e1d0c-9b8a-4f7e-8d6c-5b4a39281706',
      '3f2e1d0c-9b8a-4f7e-8d6c-5b4a39281706\n',
      'zf2e1d0c-9b8a-4f7e-8d6c-5b4a39281706',
      42,
      undefined,
      null,
    ]) {
      expect(isUuid(value)).toBe(false);
    }
  });

  it('isRecord takes objects, not arrays, null or primitives', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord(Object.create(null))).toBe(true);
    for (const value of [[], null, undefined, 'x', 1, true]) expect(isRecord(value)).toBe(false);
  });

  it('toStorableText drops NUL, replaces lone surrogates with U+FFFD and keeps every other character', () => {
    expect(toStorableText('a\u0000b')).toBe('ab');
    expect(toStorableText('\uD800x\uDC00')).toBe('\uFFFDx\uFFFD');
    expect(toStorableText('\uDC00\uD800')).toBe('\uFFFD\uFFFD');
    expect(toStorableText('pair \uD83D\uDE00 ok')).toBe('pair \uD83D\uDE00 ok');
    expect(toStorableText('tab\there\r\n')).toBe('tab\there\r\n');
    expect(toStorableText('\u0000'.repeat(3) + '\uDBFF\uDFFF')).toBe('\uDBFF\uDFFF');
  });

  it('errorCodeOf reads a Parley error code off any error, and nothing else', () => {
    expect(errorCodeOf(new ParleyError('BAD_REQUEST', 'no'))).toBe('BAD_REQUEST');
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 'NOT_FOUND' }))).toBe('NOT_FOUND');
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 'toString' }))).toBeUndefined();
    expect(errorCodeOf(new Error('x'))).toBeUndefined();
    expect(errorCodeOf('BAD_REQUEST')).toBeUndefined();
    expect(errorCodeOf(null)).toBeUndefined();
  });
});

describe('uuidFromBytes', () => {
  it('sets the version and variant bits and keeps the rest', () => {
    const ones = new Uint8Array(20).fill(0xff);
    expect(uuidFromBytes(ones, 8)).toBe('ffffffff-ffff-8fff-bfff-ffffffffffff');
    expect(uuidFromBytes(new Uint8Array(16), 5)).toBe('00000000-0000-5000-8000-000000000000');
    expect(
      isUuid(
        uuidFromBytes(
          Uint8Array.from({ length: 32 }, (_, i) => i * 7),
          8,
        ),
      ),
    ).toBe(true);
  });
});
