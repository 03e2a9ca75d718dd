import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  agentLoopSettingsSchema,
  KNOWN_SETTINGS,
  modelSettingsSchema,
  PLUGIN_SETTINGS,
  teeSettingsSchema,
} from '@parley/server/config';
import { describe, expect, it } from 'vitest';
import { helpText, SETTING_GROUPS } from './help-text';

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

  it('groups exactly the settings of the schema, each once (a setting added to the schema must be listed)', () => {
    const listed = SETTING_GROUPS.flatMap((group) => group.settings);
    const plugins: readonly string[] = PLUGIN_SETTINGS;
    const schema = KNOWN_SETTINGS.filter((name) => !plugins.includes(name));
    expect([...listed].sort()).toEqual([...schema].sort());
    expect(new Set(listed).size).toBe(listed.length);
    for (const name of listed) expect(text).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it('keeps the model, agent loop and TEE groups equal to their schemas', () => {
    const group = (title: string) =>
      [...(SETTING_GROUPS.find((each) => each.title === title)?.settings ?? [])].sort();
    expect(group('Model')).toEqual(Object.keys(modelSettingsSchema.shape).sort());
    expect(group('Agent loop')).toEqual(Object.keys(agentLoopSettingsSchema.shape).sort());
    expect(group('TEE')).toEqual(Object.keys(teeSettingsSchema.shape).sort());
  });

  it('keeps every line within 120 columns', () => {
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(120);
  });
});
