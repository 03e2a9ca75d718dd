import { z } from 'zod';
import { DEFAULTS } from '../defaults';
import { guardSettingsSchema } from '../guards/guard-settings';
import { authSettingsSchema } from '../identity/auth-settings';
import { LOG_LEVELS } from '../logger';
import { LOOP_SETTINGS } from '../reply/loop/loop-limits';
import { invalidTargetEntry } from '../webhooks/target-policy';
import {
  durationList,
  oneOf,
  optionalOneOf,
  list,
  optionalWholeNumber,
  text,
  textWithDefault,
  urlOf,
  wholeNumber,
  yesNo,
} from './setting-types';

const SALT_MIN_LENGTH = 8;
const SALT_MAX_LENGTH = 128;

/** The settings of the TEE (`TEE_MODE`, `TEE_VENDOR`, `WALLET_SECRET_SALT`, `DSTACK_SIMULATOR_ENDPOINT`). */
export const teeSettingsSchema = z
  .object({
    TEE_MODE: oneOf(['OFF', 'LOCAL', 'DOCKER', 'PRODUCTION'], DEFAULTS.teeMode),
    TEE_VENDOR: oneOf(['phala'], DEFAULTS.teeVendor),
    WALLET_SECRET_SALT: text(),
    DSTACK_SIMULATOR_ENDPOINT: z.preprocess(
      (value) => (typeof value === 'string' ? value.trim() || undefined : value),
      z
        .string()
        .refine(
          (value) => {
            if (value.startsWith('/')) return true;
            try {
              return ['http:', 'https:'].includes(new URL(value).protocol);
            } catch {
              return false;
            }
          },
          { error: 'must be an absolute unix socket path or an http(s) URL' },
        )
        .optional(),
    ),
  })
  .superRefine((settings, context) => {
    if (settings.TEE_MODE === 'OFF') return;
    const salt = settings.WALLET_SECRET_SALT;
    if (salt === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['WALLET_SECRET_SALT'],
        message: `is required when TEE_MODE is ${settings.TEE_MODE}`,
      });
    } else if (salt.length < SALT_MIN_LENGTH || salt.length > SALT_MAX_LENGTH) {
      // Names the rule, never the value or its length: the salt is a secret even when it is wrong.
      context.addIssue({
        code: 'custom',
        path: ['WALLET_SECRET_SALT'],
        message: `must be ${SALT_MIN_LENGTH} to ${SALT_MAX_LENGTH} characters after trimming`,
      });
    }
  });

/** The settings that choose the model agents answer with. */
export const modelSettingsSchema = z
  .object({
    MODEL_PROVIDER: oneOf(['eliza', 'openai'], DEFAULTS.modelProvider),
    OPENAI_BASE_URL: urlOf(['http:', 'https:'], 'an http(s) URL'),
    OPENAI_API_KEY: text(),
    MODEL: text(),
    MODEL_TIMEOUT_MS: wholeNumber(DEFAULTS.modelTimeoutMs, 1),
    MODEL_TOOLS: yesNo(true),
    MODEL_INCLUDE_USAGE: yesNo(true),
  })
  .superRefine((settings, context) => {
    if (settings.MODEL_PROVIDER === 'openai' && settings.MODEL === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['MODEL'],
        message: 'is required when MODEL_PROVIDER=openai (for example MODEL=gpt-4o-mini)',
      });
    }
  });

/**
 * The bounds of each reply's loop of model and tool calls (`DEFAULTS.agentLoop`); a character's `settings` of the
 * same names override them for that agent, within the same ranges.
 */
export const agentLoopSettingsSchema = z.object({
  AGENT_MAX_STEPS: loopBound('maxSteps'),
  TOOL_TIMEOUT_MS: loopBound('toolTimeoutMs'),
  TOOL_MAX_PARALLEL: loopBound('maxParallelTools'),
  TOOL_MAX_CALLS_PER_STEP: loopBound('maxToolCallsPerStep'),
  TOOL_RESULT_LIMIT: loopBound('toolResultLimit'),
  PROVIDER_TIMEOUT_MS: loopBound('providerTimeoutMs'),
  EVALUATOR_TIMEOUT_MS: loopBound('evaluatorTimeoutMs'),
  /** How long an action call waits for a person's approval before it is refused (1 s to 30 days). */
  APPROVAL_TIMEOUT_MS: wholeNumber(DEFAULTS.approvals.timeoutMs, 1_000, 30 * 24 * 3_600_000),
});

function loopBound(key: keyof typeof LOOP_SETTINGS) {
  return wholeNumber(DEFAULTS.agentLoop[key], LOOP_SETTINGS[key].min, LOOP_SETTINGS[key].max);
}

/** The server's own settings. */
export const serverSettingsSchema = z.object({
  PORT: wholeNumber(DEFAULTS.port, 0, 65535),
  HOST: textWithDefault(DEFAULTS.host),
  DATA_DIR: textWithDefault(DEFAULTS.dataDir),
  DATABASE_URL: urlOf(['postgres:', 'postgresql:'], 'a postgres:// URL'),
  DATABASE_CREATE: oneOf(['auto', 'true', 'false'], DEFAULTS.databaseCreate),
  REDIS_URL: urlOf(['redis:', 'rediss:'], 'a redis:// URL'),
  SERVER_AUTH_TOKEN: text(),
  LOG_LEVEL: oneOf(LOG_LEVELS, DEFAULTS.logLevel),
  LOG_FORMAT: optionalOneOf(['pretty', 'json']),
  REQUEST_LOG_LEVEL: oneOf(LOG_LEVELS, DEFAULTS.requestLogLevel),
  CHARACTERS: list(),
  PLUGINS: list(),
  SYNC_TIMEOUT_MS: wholeNumber(DEFAULTS.syncTimeoutMs, 1),
  ROUTE_TIMEOUT_MS: wholeNumber(DEFAULTS.routeTimeoutMs, 1),
  BODY_LIMIT: wholeNumber(DEFAULTS.bodyLimit, 1),
  UPLOAD_LIMIT: wholeNumber(DEFAULTS.uploadLimit, 1),
  ATTACHMENT_MAX_BYTES: wholeNumber(DEFAULTS.attachmentMaxBytes, 1, 100 * 1024 * 1024),
  SERVER_URL: urlOf(['http:', 'https:'], 'an http(s) URL'),
  WEBHOOK_RETRY_DELAYS: durationList(DEFAULTS.webhooks.retryDelaysMs),
  WEBHOOK_PRIVATE_TARGETS: list().refine((entries) => invalidTargetEntry(entries) === undefined, {
    error: 'must be comma-separated host names, addresses or CIDR ranges',
  }),
  WEBHOOK_TIMEOUT_MS: wholeNumber(DEFAULTS.webhooks.timeoutMs, 1, 120_000),
  /** How long an `Idempotency-Key` is kept after its first use (1 s to 30 days); past it, it is new again. */
  IDEMPOTENCY_KEY_TTL_MS: wholeNumber(DEFAULTS.idempotency.keyTtlMs, 1_000, 30 * 86_400_000),
  /** An MCP tool call's deadline when the character's `settings.mcp` sets none (1 ms to 10 min). */
  MCP_CALL_TIMEOUT_MS: wholeNumber(DEFAULTS.mcp.callTimeoutMs, 1, 600_000),
  /** The commands stdio MCP servers may run, as characters write them; `none`: no stdio server. Unset: any. */
  MCP_STDIO_COMMANDS: list(),
  /** Whether agents may be created, changed, started, stopped and deleted over HTTP (`/api/agents`). */
  AGENT_MANAGEMENT: yesNo(DEFAULTS.agentManagement.enabled),
  /** A prompt's bound in estimated tokens; older turns go into a running summary (docs/memory.md). */
  PROMPT_TOKEN_BUDGET: wholeNumber(DEFAULTS.conversation.promptTokenBudget, 500, 10_000_000),
  CONVERSATION_SUMMARY: oneOf(
    ['auto', 'model', 'extractive', 'off'],
    DEFAULTS.conversation.summary,
  ),
  /** Facts about the speaker remembered after replies (docs/memory.md). */
  FACT_EXTRACTION: oneOf(['rules', 'model', 'off'], DEFAULTS.facts.extraction),
  /** Embeddings (docs/memory.md, "Embeddings"): unset `EMBEDDING_MODEL` is the offline embedder. Read by `embeddingsFromEnv`. */
  EMBEDDING_MODEL: text(),
  /** The embedded database's vector search: `exact` (in memory), or `hnsw` (PGlite's pgvector and its index). */
  MEMORY_VECTOR_INDEX: oneOf(['exact', 'hnsw'], 'exact'),
  EMBEDDING_URL: urlOf(['http:', 'https:'], 'an http(s) URL'),
  EMBEDDING_API_KEY: text(),
  EMBEDDING_DIMENSIONS: optionalWholeNumber(1, 16_000),
  EMBEDDING_TIMEOUT_MS: optionalWholeNumber(1, 600_000),
  EMBEDDING_BATCH_SIZE: optionalWholeNumber(1, 2_048),
  /** Knowledge's bounds (docs/memory.md, "Knowledge"): a document's bytes, documents per agent, files per upload. */
  KNOWLEDGE_MAX_DOCUMENT_BYTES: wholeNumber(
    DEFAULTS.knowledge.maxDocumentBytes,
    1,
    100 * 1024 * 1024,
  ),
  KNOWLEDGE_MAX_DOCUMENTS: wholeNumber(DEFAULTS.knowledge.maxDocumentsPerAgent, 1, 1_000_000),
  KNOWLEDGE_MAX_FILES_PER_REQUEST: wholeNumber(DEFAULTS.knowledge.maxFilesPerRequest, 1, 100),
  KNOWLEDGE_MAX_FRAGMENTS_PER_DOCUMENT: wholeNumber(
    DEFAULTS.knowledge.maxFragmentsPerDocument,
    1,
    100_000,
  ),
  /** Estimated tokens of knowledge one prompt carries. */
  KNOWLEDGE_RECALL_TOKENS: wholeNumber(DEFAULTS.knowledge.recallTokens, 50, 1_000_000),
  /** The folder a character's `{path}`/`{directory}` knowledge is read from; nothing outside it is read. */
  KNOWLEDGE_PATH: z.string().trim().min(1).default(DEFAULTS.knowledge.root),
});

/**
 * Every setting of the Parley app, with its default (from {@link DEFAULTS}, the one place defaults live).
 * Unknown keys are ignored here (the environment holds much else); {@link findMistypedSettings} warns about
 * near misses.
 */
export const settingsSchema = z.intersection(
  z.intersection(serverSettingsSchema, agentLoopSettingsSchema),
  z.intersection(
    modelSettingsSchema,
    // The guards' settings (TRUST_PROXY, ALLOWED_HOSTS, rate limits, connection caps): guards/guard-settings.ts.
    // The identity settings (AUTH_*): identity/auth-settings.ts, docs/identity.md.
    z.intersection(teeSettingsSchema, z.intersection(guardSettingsSchema, authSettingsSchema)),
  ),
);

/** The parsed settings. */
export type Settings = z.infer<typeof settingsSchema>;

/** Settings whose values are secrets: never printed, logged or echoed in an error. */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'SERVER_AUTH_TOKEN',
  'AUTH_JWT_SECRET',
  'EMBEDDING_API_KEY',
  'OPENAI_API_KEY',
  'WALLET_SECRET_SALT',
  'WEBHOOK_API_KEY',
  'GITHUB_WEBHOOK_SECRET',
]);

/** Settings read by the example plugins and tests rather than by the server itself. */
export const PLUGIN_SETTINGS = [
  'WEBHOOK_API_KEY',
  'NOTIFICATION_CHANNEL_ID',
  'GITHUB_WEBHOOK_SECRET',
  'TEST_DATABASE_URL',
] as const;

/** Every setting name Parley knows. */
export const KNOWN_SETTINGS: readonly string[] = [
  ...Object.keys(serverSettingsSchema.shape),
  ...Object.keys(agentLoopSettingsSchema.shape),
  ...Object.keys(modelSettingsSchema.shape),
  ...Object.keys(teeSettingsSchema.shape),
  ...Object.keys(guardSettingsSchema.shape),
  ...Object.keys(authSettingsSchema.shape),
  ...PLUGIN_SETTINGS,
];
