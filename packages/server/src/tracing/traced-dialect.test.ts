import { describe, expect, it } from 'vitest';
import { operationOf } from './traced-dialect';

describe('the operation a statement span is named by', () => {
  it.each([
    ['select 1', 'SELECT'],
    ['  insert into "messages" values ($1)', 'INSERT'],
    [
      'with "created" as (insert into "channels" values ($1) returning id) insert into "messages" (id) values ($2)',
      'INSERT',
    ],
    [
      "WITH expired AS (DELETE FROM t WHERE x = 'select (') SELECT EXISTS (SELECT 1 FROM t) AS blocked",
      'SELECT',
    ],
    ['with a as (select 1)', 'WITH'],
    ['', 'QUERY'],
  ])('%s is %s', (sql, operation) => {
    expect(operationOf(sql)).toBe(operation);
  });
});
