import { describe, expect, it } from 'vitest';
import { factsByRules } from './fact-rules';

describe('facts by rules', () => {
  it('reads first-person statements as third-person claims', () => {
    expect(factsByRules('Hi! My name is Ada Lovelace, and I live in London.')).toEqual([
      'Their name is Ada Lovelace',
      'They live in London',
    ]);
    expect(factsByRules("I'm allergic to peanuts. My favourite colour is teal.")).toEqual([
      'They are allergic to peanuts',
      'Their favourite colour is teal',
    ]);
    expect(factsByRules('I prefer green tea over coffee')).toEqual([
      'They like green tea over coffee',
    ]);
  });

  it('skips questions, other people and long rambles', () => {
    expect(factsByRules('Do you know where I live in winter?')).toEqual([]);
    expect(factsByRules('What is the weather today')).toEqual([]);
    expect(factsByRules(`I live in ${'a very long place name '.repeat(10)}`)).toEqual([]);
  });
});
