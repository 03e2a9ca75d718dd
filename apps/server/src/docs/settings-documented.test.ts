import { readFile } from 'node:fs/promises';
import { KNOWN_SETTINGS } from '@parley/server/config';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFile(new URL(`../../../../${path}`, import.meta.url), 'utf8');

describe('every setting of the schema is documented', () => {
  it.each(['.env.example', 'README.md'])('in %s', async (file) => {
    const text = await read(file);
    const missing = KNOWN_SETTINGS.filter(
      (name) => name !== 'TEST_DATABASE_URL' && !new RegExp(`\\b${name}\\b`).test(text),
    );
    expect(missing).toEqual([]);
  });
});
