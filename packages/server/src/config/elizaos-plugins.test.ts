import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/config-error';
import { loadConfig } from './load-config';

const SECRET = 'sk-proj-character-secret-0123456789';
const ENV_SECRET = 'sk-proj-environment-secret-9876543210';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-elizaos-plugins-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

/** Writes `characters` as files and loads the configuration the app would, from `env` alone. */
async function configWith(characters: object[], env: Record<string, string> = {}) {
  const paths: string[] = [];
  for (const [index, character] of characters.entries()) {
    const path = join(cwd, `character-${Math.random().toString(36).slice(2)}-${index}.json`);
    await writeFile(path, JSON.stringify(character));
    paths.push(path);
  }
  return loadConfig({ env: { ...env }, argv: paths.flatMap((path) => ['--character', path]), cwd });
}

const INFRA = ['@elizaos/plugin-sql', '@elizaos/plugin-bootstrap'];

describe("elizaOS characters' plugins, read through the configuration", () => {
  it('infrastructure plugins leave the list, one info line each; other entries stay for the loader', async () => {
    const config = await configWith([
      { name: 'Eliza', plugins: [...INFRA, '@elizaos/plugin-mcp', '@acme/plugin-weather'] },
    ]);
    expect(config.characters[0]!.plugins).toEqual(['@acme/plugin-weather']);
    expect(config.notes).toHaveLength(3);
    expect(config.notes[0]).toMatch(
      /^character Eliza: @elizaos\/plugin-sql is not loaded; Parley's own storage/,
    );
    expect(config.notes[1]).toMatch(
      /@elizaos\/plugin-bootstrap is not loaded; Parley's agent loop/,
    );
    expect(config.model).toEqual({ provider: 'eliza' });
  });

  it("plugin-openai: the character's secret key, its large model and the environment's endpoint", async () => {
    const config = await configWith(
      [
        {
          name: 'Ada',
          plugins: [...INFRA, '@elizaos/plugin-openai'],
          settings: {
            OPENAI_SMALL_MODEL: 'gpt-4o-mini',
            OPENAI_LARGE_MODEL: 'gpt-4.1',
            secrets: { OPENAI_API_KEY: SECRET },
          },
        },
      ],
      { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: ENV_SECRET },
    );
    expect(config.characters[0]!.plugins).toEqual([]);
    // elizaOS's order: the character's secrets before the environment.
    expect(config.model).toMatchObject({
      provider: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'gpt-4.1',
      apiKey: SECRET,
    });
    const line = config.notes.find((note) => note.includes('plugin-openai'))!;
    expect(line).toContain('MODEL gpt-4.1 (OPENAI_LARGE_MODEL from the character');
    expect(line).toContain('OPENAI_API_KEY from the character');
    expect(JSON.stringify(config.notes)).not.toContain(SECRET);
  });

  it('LARGE_MODEL is the fallback, and the plugin default after it', async () => {
    const key = { secrets: { OPENAI_API_KEY: SECRET } };
    const generic = await configWith([
      {
        name: 'A',
        plugins: ['@elizaos/plugin-openai'],
        settings: { ...key, LARGE_MODEL: 'm-large' },
      },
    ]);
    expect(generic.model).toMatchObject({ model: 'm-large', baseUrl: 'https://api.openai.com/v1' });
    const none = await configWith([
      { name: 'B', plugins: ['@elizaos/plugin-openai'], settings: key },
    ]);
    expect(none.model).toMatchObject({ model: 'gpt-4o' });
  });

  it("plugin-ollama: OLLAMA_API_ENDPOINT's /api becomes Ollama's OpenAI-compatible /v1; no key is sent", async () => {
    const config = await configWith(
      [
        {
          name: 'Olla',
          plugins: [...INFRA, '@elizaos/plugin-ollama'],
          settings: {
            OLLAMA_API_ENDPOINT: 'http://127.0.0.1:11434/api',
            OLLAMA_LARGE_MODEL: 'llama3.1:8b',
          },
        },
      ],
      // An OpenAI key in the environment is never sent to another provider.
      { OPENAI_API_KEY: ENV_SECRET },
    );
    expect(config.model).toEqual(
      expect.objectContaining({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1:8b' }),
    );
    expect(config.model).not.toHaveProperty('apiKey');
  });

  it('plugin-anthropic goes through Anthropic’s OpenAI-compatible endpoint, and says so', async () => {
    const config = await configWith([
      {
        name: 'Claudia',
        plugins: ['@elizaos/plugin-anthropic'],
        secrets: { ANTHROPIC_API_KEY: SECRET },
      },
    ]);
    expect(config.model).toMatchObject({ baseUrl: 'https://api.anthropic.com/v1', apiKey: SECRET });
    expect(config.notes.join('\n')).toContain("Anthropic's OpenAI-compatible endpoint");
  });

  it('MODEL_PROVIDER set in the environment wins: the character’s model plugin is not used, and the line says why', async () => {
    const config = await configWith(
      [
        {
          name: 'Ada',
          plugins: ['@elizaos/plugin-openai'],
          settings: { secrets: { OPENAI_API_KEY: SECRET } },
        },
      ],
      { MODEL_PROVIDER: 'eliza' },
    );
    expect(config.model).toEqual({ provider: 'eliza' });
    expect(config.notes).toEqual([
      "character Ada: @elizaos/plugin-openai is not loaded; MODEL_PROVIDER is set, so the environment's model settings choose the model",
    ]);
  });

  it('one model per server: the first character chooses, a second one that differs is a warning', async () => {
    const config = await configWith([
      { name: 'A', plugins: ['@elizaos/plugin-openai'], secrets: { OPENAI_API_KEY: SECRET } },
      { name: 'B', plugins: ['@elizaos/plugin-ollama'] },
    ]);
    expect(config.model).toMatchObject({ baseUrl: 'https://api.openai.com/v1' });
    expect(config.warnings).toContainEqual(
      expect.stringMatching(
        /^character B: @elizaos\/plugin-ollama is not used: Parley has one model per server, chosen by character A/,
      ),
    );
  });

  it('a provider that needs a key and has none stops start-up with the setting to set, naming no value', async () => {
    const error = await configWith([
      { name: 'Rou', plugins: ['@elizaos/plugin-openrouter'] },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /^character Rou: @elizaos\/plugin-openrouter needs OPENROUTER_API_KEY: set it in the character's settings.secrets or the environment/,
    );
  });

  it('an endpoint that is not an http(s) URL is a ConfigError naming it, its password hidden', async () => {
    const error = await configWith([
      {
        name: 'Ada',
        plugins: ['@elizaos/plugin-openai'],
        settings: {
          OPENAI_BASE_URL: 'ftp://user:hunter2@example.com/v1',
          secrets: { OPENAI_API_KEY: SECRET },
        },
      },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('OPENAI_BASE_URL');
    expect((error as Error).message).not.toContain('hunter2');
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('plugin-local-ai, which Parley cannot run, starts with a warning that says what to do', async () => {
    const config = await configWith([
      { name: 'Loki', plugins: [...INFRA, '@elizaos/plugin-local-ai'] },
    ]);
    expect(config.model).toEqual({ provider: 'eliza' });
    expect(config.characters[0]!.plugins).toEqual([]);
    expect(config.warnings.join('\n')).toMatch(/plugin-local-ai is not loaded: .*ollama serve/);
  });
});
