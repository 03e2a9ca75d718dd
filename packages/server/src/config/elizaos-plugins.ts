import type { Character } from '@parley/plugin-sdk';
import { settingText } from '../agents/character';
import { ConfigError } from '../errors/config-error';
import type { ModelSettings } from '../models/model-from-env';
import { maskSetting } from './mask-setting';

/**
 * elizaOS's infrastructure plugins, which elizaOS characters list and Parley does itself: each is recognised,
 * not loaded, and said once with what does its work here.
 */
export const ELIZAOS_INFRASTRUCTURE_PLUGINS: ReadonlyMap<string, string> = new Map([
  [
    '@elizaos/plugin-sql',
    "Parley's own storage (DATABASE_URL, else the embedded database in DATA_DIR)",
  ],
  ['@elizaos/adapter-postgres', "Parley's own storage (DATABASE_URL)"],
  ['@elizaos/adapter-pglite', "Parley's own storage (the embedded database in DATA_DIR)"],
  [
    '@elizaos/adapter-sqlite',
    "Parley's own storage (DATABASE_URL, else the embedded database in DATA_DIR)",
  ],
  ['@elizaos/plugin-pglite', "Parley's own storage (the embedded database in DATA_DIR)"],
  [
    '@elizaos/plugin-bootstrap',
    "Parley's agent loop (it answers messages with REPLY and the agent's actions, providers and evaluators)",
  ],
  ['@elizaos/plugin-mcp', "Parley's MCP client (the servers in the character's settings.mcp)"],
]);

/** How one elizaOS model-provider plugin's settings become Parley's OpenAI-compatible model settings. */
interface ModelProviderPlugin {
  /** The setting with the API key; undefined for a provider that takes none. */
  apiKey?: string;
  /** Whether the provider refuses requests without a key (its default endpoint does). */
  keyRequired: boolean;
  /** The setting with the endpoint, and the endpoint when it is unset. */
  baseUrl: string;
  defaultBaseUrl: string;
  /** Turns the plugin's endpoint into the OpenAI-compatible one (Ollama's `/api` is `/v1` there). */
  toOpenAIUrl?: (url: string) => string;
  /** The settings naming the chat model, first found wins: elizaOS answers messages with its large model. */
  model: readonly string[];
  defaultModel: string;
  /** Said in the info line: how Parley reaches it. */
  via?: string;
}

const ollamaUrl = (url: string) => {
  const trimmed = url.replace(/\/+$/, '');
  if (/\/v1$/.test(trimmed)) return trimmed;
  return `${trimmed.replace(/\/api$/, '')}/v1`;
};

/**
 * elizaOS's model-provider plugins whose provider answers OpenAI's chat completions API, with the settings
 * names and defaults of their elizaOS 1.x READMEs.
 */
export const ELIZAOS_MODEL_PROVIDERS: ReadonlyMap<string, ModelProviderPlugin> = new Map([
  [
    '@elizaos/plugin-openai',
    {
      apiKey: 'OPENAI_API_KEY',
      keyRequired: true,
      baseUrl: 'OPENAI_BASE_URL',
      defaultBaseUrl: 'https://api.openai.com/v1',
      model: ['OPENAI_LARGE_MODEL', 'LARGE_MODEL'],
      defaultModel: 'gpt-4o',
    },
  ],
  [
    '@elizaos/plugin-ollama',
    {
      keyRequired: false,
      baseUrl: 'OLLAMA_API_ENDPOINT',
      defaultBaseUrl: 'http://localhost:11434/api',
      toOpenAIUrl: ollamaUrl,
      model: ['OLLAMA_LARGE_MODEL', 'LARGE_MODEL'],
      defaultModel: 'gemma3:latest',
      via: "Ollama's OpenAI-compatible endpoint",
    },
  ],
  [
    '@elizaos/plugin-openrouter',
    {
      apiKey: 'OPENROUTER_API_KEY',
      keyRequired: true,
      baseUrl: 'OPENROUTER_BASE_URL',
      defaultBaseUrl: 'https://openrouter.ai/api/v1',
      model: ['OPENROUTER_LARGE_MODEL', 'LARGE_MODEL'],
      defaultModel: 'google/gemini-2.5-flash',
    },
  ],
  [
    '@elizaos/plugin-groq',
    {
      apiKey: 'GROQ_API_KEY',
      keyRequired: true,
      baseUrl: 'GROQ_BASE_URL',
      defaultBaseUrl: 'https://api.groq.com/openai/v1',
      model: ['GROQ_LARGE_MODEL', 'LARGE_MODEL'],
      defaultModel: 'llama-3.3-70b-versatile',
    },
  ],
  [
    '@elizaos/plugin-anthropic',
    {
      apiKey: 'ANTHROPIC_API_KEY',
      keyRequired: true,
      baseUrl: 'ANTHROPIC_BASE_URL',
      defaultBaseUrl: 'https://api.anthropic.com/v1',
      model: ['ANTHROPIC_LARGE_MODEL', 'LARGE_MODEL'],
      defaultModel: 'claude-sonnet-4-20250514',
      via: "Anthropic's OpenAI-compatible endpoint (chat completions; Claude's own API features are not used)",
    },
  ],
  [
    '@elizaos/plugin-google-genai',
    {
      apiKey: 'GOOGLE_GENERATIVE_AI_API_KEY',
      keyRequired: true,
      baseUrl: 'GOOGLE_BASE_URL',
      defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
      model: ['GOOGLE_LARGE_MODEL', 'LARGE_MODEL'],
      defaultModel: 'gemini-2.5-flash',
      via: "Google's OpenAI-compatible endpoint",
    },
  ],
]);

/** Model plugins whose model runs inside elizaOS's process: Parley cannot use them; what to do instead. */
const IN_PROCESS_MODEL_PLUGINS: ReadonlyMap<string, string> = new Map([
  [
    '@elizaos/plugin-local-ai',
    'runs GGUF models inside elizaOS, which Parley cannot; run a local OpenAI-compatible server instead (`ollama serve`, then list @elizaos/plugin-ollama in place of it, or set MODEL_PROVIDER=openai OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=<model>)',
  ],
]);

/** What Parley makes of the elizaOS plugins characters list. */
export interface ElizaosAdaptation {
  /** The characters, their `plugins` without the entries recognised here. */
  characters: Character[];
  /** The model a character's provider plugin chose; undefined when none did or `MODEL_PROVIDER` is set. */
  model: Extract<ModelSettings, { provider: 'openai' }> | undefined;
  /** One info line per recognised plugin and character. */
  notes: string[];
  /**
   * What the operator should know: a second character's model plugin that one model per server leaves unused, a
   * model plugin Parley cannot run.
   */
  warnings: string[];
}

/** A setting as elizaOS's `getSetting` reads it: the character's secrets, then its settings, then the environment. */
function settingOf(
  character: Character,
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): { value: string; from: string } | undefined {
  const nested = (character.settings as { secrets?: Record<string, unknown> } | undefined)?.secrets;
  const sources: [unknown, string][] = [
    [character.secrets?.[name], "the character's secrets"],
    [nested?.[name], "the character's settings.secrets"],
    [character.settings?.[name], "the character's settings"],
    [env[name], 'the environment'],
  ];
  for (const [raw, from] of sources) {
    const value = settingText(raw)?.trim();
    if (value) return { value, from };
  }
  return undefined;
}

/** The model settings one provider plugin stands for, and the line that says so (no secret in it). */
function modelOf(
  name: string,
  plugin: ModelProviderPlugin,
  character: Character,
  env: Readonly<Record<string, string | undefined>>,
  base: { timeoutMs: number; callsTools: boolean; includeUsage: boolean },
): { model: NonNullable<ElizaosAdaptation['model']>; note: string } {
  const where = `character ${character.name}: ${name}`;
  const key = plugin.apiKey ? settingOf(character, env, plugin.apiKey) : undefined;
  const url = settingOf(character, env, plugin.baseUrl);
  const rawUrl = url?.value ?? plugin.defaultBaseUrl;
  let baseUrl: string;
  try {
    const parsed = new URL(plugin.toOpenAIUrl ? plugin.toOpenAIUrl(rawUrl) : rawUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
    baseUrl = parsed.toString().replace(/\/+$/, '');
  } catch {
    throw new ConfigError(
      `${where}: ${plugin.baseUrl} ${maskSetting('OPENAI_BASE_URL', rawUrl)} (from ${url?.from ?? 'the default'}) is not an http(s) URL`,
    );
  }
  if (plugin.apiKey && !key && plugin.keyRequired && url === undefined) {
    throw new ConfigError(
      `${where} needs ${plugin.apiKey}: set it in the character's settings.secrets or the environment (or set MODEL_PROVIDER and its settings to choose the model otherwise)`,
    );
  }
  let modelName = plugin.defaultModel;
  let modelFrom = 'the plugin default';
  for (const setting of plugin.model) {
    const found = settingOf(character, env, setting);
    if (found) {
      modelName = found.value;
      modelFrom = `${setting} from ${found.from}`;
      break;
    }
  }
  const parts = [
    `MODEL ${modelName} (${modelFrom})`,
    `OPENAI_BASE_URL ${maskSetting('OPENAI_BASE_URL', baseUrl)}${url ? ` (${plugin.baseUrl} from ${url.from})` : ''}`,
    key ? `API key ${plugin.apiKey} from ${key.from}` : 'no API key',
  ];
  return {
    model: {
      provider: 'openai',
      baseUrl,
      model: modelName,
      ...(key ? { apiKey: key.value } : {}),
      ...base,
    },
    note: `${where} is Parley's OpenAI-compatible model${plugin.via ? ` through ${plugin.via}` : ''}: ${parts.join(', ')}`,
  };
}

/**
 * Recognises the elizaOS plugins characters list. Infrastructure plugins (`@elizaos/plugin-sql`,
 * `@elizaos/plugin-bootstrap`, the database adapters, `@elizaos/plugin-mcp`) are replaced by Parley's own
 * equivalents; a model-provider plugin (`@elizaos/plugin-openai`, `-ollama`, `-openrouter`, `-groq`,
 * `-anthropic`, `-google-genai`) chooses the server's model from its settings, read as elizaOS reads them (the
 * character's secrets, then its settings, then the environment), unless `MODEL_PROVIDER` is set: the
 * operator's explicit choice wins and the plugin's settings are not used. One model per server: the first
 * character with a provider plugin chooses it. `@elizaos/plugin-local-ai`, which Parley cannot run, is a warning
 * that says what to do instead. Every other entry is left for the plugin loader.
 *
 * @throws ConfigError naming the character and plugin: a provider without its required key, or a bad endpoint.
 */
export function adaptElizaosCharacters(
  characters: readonly Character[],
  env: Readonly<Record<string, string | undefined>>,
  base: { timeoutMs: number; callsTools: boolean; includeUsage: boolean },
): ElizaosAdaptation {
  const notes: string[] = [];
  const warnings: string[] = [];
  const modelProviderSet = (env.MODEL_PROVIDER ?? '').trim() !== '';
  let model: ElizaosAdaptation['model'];
  let chosenBy: string | undefined;
  const adapted = characters.map((character) => {
    if (!character.plugins) return character;
    const kept: string[] = [];
    for (const entry of character.plugins) {
      const infrastructure = ELIZAOS_INFRASTRUCTURE_PLUGINS.get(entry);
      const provider = ELIZAOS_MODEL_PROVIDERS.get(entry);
      const inProcess = IN_PROCESS_MODEL_PLUGINS.get(entry);
      if (infrastructure) {
        notes.push(
          `character ${character.name}: ${entry} is not loaded; ${infrastructure} does its work`,
        );
      } else if (inProcess) {
        // The file still starts (the offline model, or the environment's, answers); the line says what to do.
        warnings.push(`character ${character.name}: ${entry} is not loaded: it ${inProcess}`);
      } else if (provider) {
        const where = `character ${character.name}: ${entry}`;
        if (modelProviderSet) {
          notes.push(
            `${where} is not loaded; MODEL_PROVIDER is set, so the environment's model settings choose the model`,
          );
        } else if (model === undefined) {
          const chosen = modelOf(entry, provider, character, env, base);
          model = chosen.model;
          chosenBy = where;
          notes.push(chosen.note);
        } else {
          const other = modelOf(entry, provider, character, env, base);
          if (other.model.baseUrl !== model.baseUrl || other.model.model !== model.model) {
            warnings.push(
              `${where} is not used: Parley has one model per server, chosen by ${chosenBy} (MODEL ${model.model})`,
            );
          }
        }
      } else {
        kept.push(entry);
      }
    }
    return kept.length === character.plugins.length ? character : { ...character, plugins: kept };
  });
  return { characters: adapted, model, notes, warnings };
}
