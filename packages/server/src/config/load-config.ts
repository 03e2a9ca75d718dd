import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs, parseEnv } from 'node:util';
import type { Character } from '@parley/plugin-sdk';
import type { Level, LevelWithSilent } from 'pino';
import type { ServerOptions } from '../create-server';
import { createModel, type ModelSettings } from '../models/model-from-env';
import type { TeeConfig } from '../tee/tee-config';
import { toModelSettings } from './model-settings';
import { toTeeConfig } from './tee-settings';
import { toGuardOptions } from '../guards/guard-settings';
import { ConfigError } from '../errors/config-error';
import { findMistypedSettings } from './find-mistyped-settings';
import { loadCharacterFile } from '../agents/character';
import { adaptElizaosCharacters } from './elizaos-plugins';
import { databaseCreationAllowed } from '../storage/missing-database';
import { parseSettings } from './parse-settings';
import { settingsSchema, type Settings } from './settings-schema';

/** The server configuration an operator sets through the environment, `.env` and the command line. */
export interface ParleyConfig {
  port: number;
  host: string;
  /** `DATA_DIR`, resolved against the working directory. */
  dataDir: string;
  databaseUrl: string | undefined;
  /** `REDIS_URL`: processes share rooms through Redis instead of PostgreSQL. */
  redisUrl: string | undefined;
  authToken: string | undefined;
  logLevel: LevelWithSilent;
  /** `LOG_FORMAT`; undefined lets the logger choose (pretty on a terminal, JSON otherwise). */
  logFormat: 'pretty' | 'json' | undefined;
  /** `REQUEST_LOG_LEVEL`: the level of the one line logged per HTTP request. */
  requestLogLevel: Level | 'silent';
  /** `SYNC_TIMEOUT_MS`: how long a sync channel message waits for the reply. */
  syncTimeoutMs: number;
  /** `ROUTE_TIMEOUT_MS`: plugin route handler timeout. */
  routeTimeoutMs: number;
  /** `BODY_LIMIT`: largest JSON body in bytes. */
  bodyLimit: number;
  /** `UPLOAD_LIMIT`: largest multipart upload in bytes. */
  uploadLimit: number;
  characters: Character[];
  /** `PLUGINS`, split on commas: example names, paths or package names, `examples` or `none`. */
  plugins: string[];
  /** The model settings (`MODEL_PROVIDER` and friends). */
  model: ModelSettings;
  /** The TEE settings (`TEE_MODE` and friends); `salt` is a secret. */
  tee: TeeConfig;
  /** Every parsed setting, defaults filled in. */
  settings: Settings;
  /** Things worth telling the operator that do not stop start-up (a mistyped setting name…). */
  warnings: string[];
  /** What start-up says at info level: each elizaOS plugin a character lists that Parley replaces or maps. */
  notes: string[];
  /** The environment the config was read from (`.env` merged under the process environment). */
  env: Record<string, string | undefined>;
}

/**
 * Reads a `.env` file into a plain object. A missing file is an empty environment; an unreadable one is a
 * ConfigError.
 */
export async function readDotEnv(path: string): Promise<Record<string, string>> {
  try {
    return parseEnv(await readFile(path, 'utf8')) as Record<string, string>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(
      `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

/**
 * Character file paths: those of `CHARACTERS` (comma-separated) and of the `--character` flags, both, each path
 * once (a flag adds to the setting rather than silently replacing it; see docs/decisions.md).
 */
export function characterPaths(argv: readonly string[], fromSetting: readonly string[]): string[] {
  let flags: string[] = [];
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { character: { type: 'string', multiple: true, short: 'c' } },
      allowPositionals: false,
      strict: true,
    });
    flags = values.character ?? [];
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  return [...new Set([...fromSetting, ...flags])];
}

/**
 * Builds the configuration from the environment, a `.env` file in `cwd` (the process environment wins) and the
 * command line (`--character PATH`, repeatable), through the one settings schema. Every bad setting is a
 * ConfigError with one line naming the setting and its value (secrets hidden); a name that looks like a
 * mistyped setting (`PORTT`) is a warning.
 */
export async function loadConfig(input: {
  env: Record<string, string | undefined>;
  argv?: readonly string[];
  cwd?: string;
}): Promise<ParleyConfig> {
  const cwd = input.cwd ?? process.cwd();
  const dotEnv = await readDotEnv(resolve(cwd, '.env'));
  const env = { ...dotEnv, ...input.env };
  const settings = parseSettings(settingsSchema, env);
  const files: Character[] = [];
  for (const path of characterPaths(input.argv ?? [], settings.CHARACTERS)) {
    files.push(await loadCharacterFile(resolve(cwd, path)));
  }
  // elizaOS characters as people have them: their infrastructure and model-provider plugins are Parley's own.
  const elizaos = adaptElizaosCharacters(files, env, {
    timeoutMs: settings.MODEL_TIMEOUT_MS,
    callsTools: settings.MODEL_TOOLS,
    includeUsage: settings.MODEL_INCLUDE_USAGE,
  });
  const characters = elizaos.characters;
  // Only names an operator wrote for Parley are checked: the .env file, and the process environment's names
  // that are not the shell's own (those the schema does not know and that look like ours).
  const warnings = [
    ...findMistypedSettings(Object.keys(env)).map(
      ({ name, suggestion }) => `${name} is not a Parley setting; did you mean ${suggestion}?`,
    ),
    ...elizaos.warnings,
  ];
  return {
    port: settings.PORT,
    host: settings.HOST,
    dataDir: resolve(cwd, settings.DATA_DIR),
    databaseUrl: settings.DATABASE_URL,
    redisUrl: settings.REDIS_URL,
    authToken: settings.SERVER_AUTH_TOKEN,
    logLevel: settings.LOG_LEVEL,
    logFormat: settings.LOG_FORMAT,
    requestLogLevel:
      settings.REQUEST_LOG_LEVEL === 'silent' ? 'silent' : settings.REQUEST_LOG_LEVEL,
    syncTimeoutMs: settings.SYNC_TIMEOUT_MS,
    routeTimeoutMs: settings.ROUTE_TIMEOUT_MS,
    bodyLimit: settings.BODY_LIMIT,
    uploadLimit: settings.UPLOAD_LIMIT,
    characters,
    plugins: settings.PLUGINS,
    model: elizaos.model ?? toModelSettings(settings),
    tee: toTeeConfig(settings),
    settings,
    warnings,
    notes: elizaos.notes,
    env,
  };
}

/** Server options plus the settings the app passes that createServer is gaining. */
export type ConfiguredServerOptions = ServerOptions & {
  tee: TeeConfig;
  requestLogLevel: Level | 'silent';
};

/**
 * The server options a configuration stands for: everything but plugins and the logger, which the app
 * chooses.
 */
export function toServerOptions(config: ParleyConfig): ConfiguredServerOptions {
  return {
    port: config.port,
    host: config.host,
    characters: config.characters,
    env: config.env,
    authToken: config.authToken,
    database: config.databaseUrl
      ? {
          kind: 'postgres',
          url: config.databaseUrl,
          createIfMissing: databaseCreationAllowed(
            config.settings.DATABASE_CREATE,
            config.databaseUrl,
          ),
        }
      : {
          kind: 'pglite',
          dataDir: config.dataDir,
          ...(config.settings.MEMORY_VECTOR_INDEX === 'hnsw' ? { pgvector: true } : {}),
        },
    ...(config.redisUrl ? { cluster: { kind: 'redis', url: config.redisUrl } } : {}),
    model: createModel(config.model),
    tee: config.tee,
    requestLogLevel: config.requestLogLevel,
    syncTimeoutMs: config.syncTimeoutMs,
    routeTimeoutMs: config.routeTimeoutMs,
    bodyLimit: config.bodyLimit,
    uploadLimit: config.uploadLimit,
    attachmentMaxBytes: config.settings.ATTACHMENT_MAX_BYTES,
    ...toGuardOptions(config.settings),
    agentLoop: {
      maxSteps: config.settings.AGENT_MAX_STEPS,
      toolTimeoutMs: config.settings.TOOL_TIMEOUT_MS,
      maxParallelTools: config.settings.TOOL_MAX_PARALLEL,
      maxToolCallsPerStep: config.settings.TOOL_MAX_CALLS_PER_STEP,
      toolResultLimit: config.settings.TOOL_RESULT_LIMIT,
      providerTimeoutMs: config.settings.PROVIDER_TIMEOUT_MS,
      evaluatorTimeoutMs: config.settings.EVALUATOR_TIMEOUT_MS,
    },
    approvals: { timeoutMs: config.settings.APPROVAL_TIMEOUT_MS },
    idempotency: { keyTtlMs: config.settings.IDEMPOTENCY_KEY_TTL_MS },
    webhooks: {
      retryDelaysMs: config.settings.WEBHOOK_RETRY_DELAYS,
      privateTargets: config.settings.WEBHOOK_PRIVATE_TARGETS,
      timeoutMs: config.settings.WEBHOOK_TIMEOUT_MS,
    },
    mcp: {
      callTimeoutMs: config.settings.MCP_CALL_TIMEOUT_MS,
      ...stdioCommandsOf(config.settings.MCP_STDIO_COMMANDS),
    },
    agentManagement: { enabled: config.settings.AGENT_MANAGEMENT },
    conversation: {
      promptTokenBudget: config.settings.PROMPT_TOKEN_BUDGET,
      summary: config.settings.CONVERSATION_SUMMARY,
    },
    facts: { extraction: config.settings.FACT_EXTRACTION },
    knowledge: {
      maxDocumentBytes: config.settings.KNOWLEDGE_MAX_DOCUMENT_BYTES,
      maxDocumentsPerAgent: config.settings.KNOWLEDGE_MAX_DOCUMENTS,
      maxFilesPerRequest: config.settings.KNOWLEDGE_MAX_FILES_PER_REQUEST,
      maxFragmentsPerDocument: config.settings.KNOWLEDGE_MAX_FRAGMENTS_PER_DOCUMENT,
      recallTokens: config.settings.KNOWLEDGE_RECALL_TOKENS,
      root: config.settings.KNOWLEDGE_PATH,
    },
  };
}

/** `MCP_STDIO_COMMANDS`: unset, any command; `none`, no stdio server; else the commands listed. */
function stdioCommandsOf(listed: readonly string[]): { stdioCommands?: readonly string[] } {
  if (listed.length === 0) return {};
  return { stdioCommands: listed.length === 1 && listed[0] === 'none' ? [] : listed };
}
