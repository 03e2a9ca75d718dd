import { describe, expect, it } from 'vitest';
import { evaluate, MAX_EXPRESSION } from './evaluate';

describe('evaluate', () => {
  it.each([
    ['12 * 7', 84],
    ['(3 + 4) * 2^3', 56],
    ['2^3^2', 512],
    ['-4 + +2', -2],
    ['7 % 4', 3],
    ['1.5 * .5', 0.75],
  ])('%s = %d', (expression, value) => {
    expect(evaluate(expression)).toBe(value);
  });

  it.each([
    ['', 'the expression is empty'],
    ['1 / 0', 'division by zero'],
    ['2 +', 'unexpected end at 3'],
    ['(1 + 2', 'expected ")" at 5'],
    ['process.exit()', 'unexpected "p" at 1'],
    ['9^999', 'the result is not a finite number'],
    ['1'.repeat(MAX_EXPRESSION + 1), `the expression is longer than ${MAX_EXPRESSION} characters`],
  ])('refuses %j: %s', (expression, message) => {
    expect(() => evaluate(expression)).toThrow(message);
  });
});
