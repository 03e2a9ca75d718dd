import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { helpText } from './help-text';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

describe('parley --help', () => {
  const text = helpText('1.2.3');

  it('points only to files that exist in the repository', () => {
    const files = text.match(/[\w./-]+\.(?:md|example)\b/g) ?? [];
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(existsSync(`${REPO}${file}`), file).toBe(true);
  });

  it('names REDIS_URL among the settings', () => {
    expect(text).toMatch(/\bREDIS_URL\b/);
  });
});
