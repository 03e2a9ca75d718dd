import { PGlite } from '@electric-sql/pglite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { preparedQueries } from './pglite-prepared.js';

type Query = ReturnType<typeof preparedQueries>;

/** What a query answered, or the error it threw, as a caller of the worker sees it. */
async function outcome(run: () => Promise<unknown>) {
  try {
    return { result: await run() };
  } catch (error) {
    const { message, code, constraint } = error as Record<string, unknown>;
    return { error: { message, code, constraint } };
  }
}

/** Prepared statements in the session, by name (those this module made start with parley_). */
async function preparedNames(pglite: PGlite) {
  const { rows } = await pglite.query<{ name: string }>(
    `select name from pg_prepared_statements where name like 'parley_%' order by name`,
  );
  return rows.map((row) => row.name);
}

describe('prepared statements on the embedded database', () => {
  let plain: PGlite;
  let other: PGlite;
  let query: Query;

  beforeEach(async () => {
    // Two databases with the same rows: one asked as PGlite is, one through the prepared queries.
    const schema = `
      create table items (id int primary key, name text not null unique, tags text[], data jsonb,
                          at timestamptz, raw bytea, score float8);
      insert into items values (1, 'one', '{a,b}', '{"x":1}', '2026-01-02T03:04:05Z', '\\x0102', 1.5),
                               (2, 'two', null, null, null, null, null);`;
    plain = await PGlite.create();
    other = await PGlite.create();
    await plain.exec(schema);
    await other.exec(schema);
    query = preparedQueries(other, { maxPrepared: 3 });
  });

  afterEach(async () => {
    await plain.close();
    await other.close();
  });

  /** Runs `sql` three times both ways (unprepared, preparing, prepared) and requires the same outcomes. */
  async function same(sql: string, params: (index: number) => unknown[] = () => []) {
    for (let index = 0; index < 3; index += 1) {
      const expected = await outcome(async () => {
        const { rows, affectedRows } = await plain.query(sql, params(index));
        return { rows, affectedRows };
      });
      const actual = await outcome(() => query(sql, params(index)));
      expect(actual, `${sql} (run ${index + 1})`).toEqual(expected);
    }
  }

  it('answers reads and writes as PGlite does, with every type parsed and serialized the same', async () => {
    await same('select * from items order by id');
    await same('select * from items where id = $1', (index) => [index + 1]);
    await same('select * from items where id = $1', () => [99]);
    await same('select $1::jsonb as doc, $2::text[] as list, $3::timestamptz as at', () => [
      { nested: [1, 'two', null] },
      ['x', 'y'],
      new Date('2026-11-29T12:00:00Z'),
    ]);
    await same(
      'select count(*)::int as n, max(score) as top from items where name = any($1)',
      () => [['one', 'two']],
    );
    await same('insert into items (id, name) values ($1, $2)', (index) => [
      10 + index,
      `n${index}`,
    ]);
    await same(
      'insert into items (id, name, data) values ($1, $2, $3) returning id, data',
      (index) => [20 + index, `r${index}`, { index }],
    );
    await same('update items set score = coalesce(score, 0) + $1 where id < $2', () => [1, 100]);
    await same('delete from items where id = $1', (index) => [10 + index]);
    await same(
      'with gone as (delete from items where id = $1 returning name) select * from gone',
      (index) => [20 + index],
    );
    expect(await preparedNames(other)).not.toEqual([]);
  });

  it('throws the database error PGlite throws, and keeps working after it', async () => {
    await same('insert into items (id, name) values ($1, $2)', () => [1, 'one']);
    await same('select * from items where id = $1', () => ['not a number']);
    await same('select * from no_such_table where id = $1', () => [1]);
    const error = await outcome(() =>
      query('insert into items (id, name) values ($1, $2)', [3, 'one']),
    );
    expect(error).toMatchObject({ error: { code: '23505', constraint: 'items_name_key' } });
    expect(await query('select name from items where id = $1', [1])).toEqual({
      rows: [{ name: 'one' }],
      affectedRows: 0,
    });
  });

  it('closes the least recently used statements beyond its bound', async () => {
    for (let round = 0; round < 2; round += 1) {
      for (let id = 1; id <= 6; id += 1)
        await query(`select name from items where id = ${id} and $1`, [true]);
    }
    expect(await preparedNames(other)).toHaveLength(3);
  });

  it('runs a statement again when its table changed shape since it was prepared', async () => {
    await same('select * from items where id = $1', () => [1]);
    for (const database of [plain, other])
      await database.exec('alter table items add column extra text');
    await same('select * from items where id = $1', () => [1]);
  });

  it('keeps statements released together apart, prepared or not, inside and outside a transaction', async () => {
    await query('select name from items where id = $1', [1]);
    await query('select name from items where id = $1', [2]);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        index % 2 === 0
          ? query('select name from items where id = $1', [1 + (index % 4 === 0 ? 0 : 1)])
          : query('select id from items where name = $1', [index % 3 === 0 ? 'one' : 'two']),
      ),
    );
    answers.forEach((answer, index) => {
      if (index % 2 === 0) expect(answer.rows).toEqual([{ name: index % 4 === 0 ? 'one' : 'two' }]);
      else expect(answer.rows).toEqual([{ id: index % 3 === 0 ? 1 : 2 }]);
    });
    await query('begin');
    await query('insert into items (id, name) values ($1, $2)', [30, 'thirty']);
    await query('insert into items (id, name) values ($1, $2)', [31, 'thirty-one']);
    await query('rollback');
    expect((await query('select count(*)::int as n from items where id >= $1', [30])).rows).toEqual(
      [{ n: 0 }],
    );
  });
});
