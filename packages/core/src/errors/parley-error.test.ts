import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CODES, httpStatusOf, isErrorCode } from './codes';
import { ParleyError } from './parley-error';
import { parseOrThrow } from './validation';

describe('ParleyError', () => {
  it('carries a code from the table and the status it maps to', () => {
    const error = new ParleyError('NOT_FOUND', 'Unknown agent', { details: { id: 1 } });
    expect(error).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
      message: 'Unknown agent',
      details: { id: 1 },
    });
    expect(httpStatusOf('MODEL_ERROR')).toBe(502);
    expect(Object.values(ERROR_CODES).every((status) => status >= 400 && status < 600)).toBe(true);
  });

  it('is recognised across duplicate copies of the package, and nothing else is', () => {
    // What a second install of @parley/core would produce: another class with the same global marker.
    const marker = Symbol.for('parley.error');
    const fromOtherCopy = Object.assign(new Error('x'), { [marker]: true, code: 'INTERNAL' });
    expect(ParleyError.isInstance(fromOtherCopy)).toBe(true);
    expect(ParleyError.isInstance(new ParleyError('INTERNAL', 'x'))).toBe(true);
    expect(ParleyError.isInstance(new Error('x'))).toBe(false);
    expect(ParleyError.isInstance(null)).toBe(false);
    expect(ParleyError.isInstance({ code: 'INTERNAL' })).toBe(false);
  });

  it('keeps the cause for logs', () => {
    const cause = new Error('secret detail');
    expect(new ParleyError('INTERNAL', 'Internal server error', { cause }).cause).toBe(cause);
  });

  it('knows its codes', () => {
    expect(isErrorCode('TIMEOUT')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(404)).toBe(false);
  });
});

describe('parseOrThrow', () => {
  const schema = z.object({ name: z.string(), age: z.number().int() });

  it('returns the parsed value', () => {
    expect(parseOrThrow(schema, { name: 'a', age: 3 })).toEqual({ name: 'a', age: 3 });
  });

  it('throws BAD_REQUEST naming the first problem and listing them all', () => {
    let caught: unknown;
    try {
      parseOrThrow(schema, { age: 1.5 }, 'person');
    } catch (error) {
      caught = error;
    }
    expect(ParleyError.isInstance(caught)).toBe(true);
    const error = caught as ParleyError;
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/^Invalid person: name /);
    expect(
      (error.details as { issues: { path: string }[] }).issues.map((issue) => issue.path),
    ).toEqual(['name', 'age']);
  });
});
