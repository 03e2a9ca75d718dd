/** Longest expression evaluated. */
export const MAX_EXPRESSION = 200;

/**
 * Evaluates an arithmetic expression: numbers, `+ - * / %`, `^` (power, right-associative), parentheses and unary
 * signs. No names, no calls, no `eval`: a recursive-descent parser over the characters. Throws an Error saying
 * what is wrong (`division by zero`, `unexpected ")" at 4`…).
 *
 * @example
 * evaluate('(3 + 4) * 2^3'); // 56
 */
export function evaluate(expression: string): number {
  if (expression.length > MAX_EXPRESSION) {
    throw new Error(`the expression is longer than ${MAX_EXPRESSION} characters`);
  }
  const source = expression.replace(/\s+/g, '');
  let position = 0;
  const peek = () => source.charAt(position);
  const fail = (what: string): never => {
    throw new Error(`${what} at ${position + 1}`);
  };

  function sum(): number {
    let value = product();
    while (peek() === '+' || peek() === '-') {
      const operator = source.charAt(position++);
      const right = product();
      value = operator === '+' ? value + right : value - right;
    }
    return value;
  }

  function product(): number {
    let value = power();
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const operator = source.charAt(position++);
      const right = power();
      if (operator !== '*' && right === 0) throw new Error('division by zero');
      value = operator === '*' ? value * right : operator === '/' ? value / right : value % right;
    }
    return value;
  }

  function power(): number {
    const base = unary();
    if (peek() !== '^') return base;
    position += 1;
    return base ** power();
  }

  function unary(): number {
    if (peek() === '-') {
      position += 1;
      return -unary();
    }
    if (peek() === '+') {
      position += 1;
      return unary();
    }
    return atom();
  }

  function atom(): number {
    if (peek() === '(') {
      position += 1;
      const value = sum();
      if (peek() !== ')') fail('expected ")"');
      position += 1;
      return value;
    }
    const number = /^\d+(?:\.\d+)?|^\.\d+/.exec(source.slice(position))?.[0];
    if (!number) return fail(peek() === '' ? 'unexpected end' : `unexpected "${peek()}"`);
    position += number.length;
    return Number(number);
  }

  if (source === '') throw new Error('the expression is empty');
  const value = sum();
  if (position < source.length) fail(`unexpected "${peek()}"`);
  if (!Number.isFinite(value)) throw new Error('the result is not a finite number');
  return value;
}
