/** A group of settings as `--help` lists them. */
export interface SettingGroup {
  readonly title: string;
  readonly settings: readonly string[];
}

/**
 * Every setting of the server, by topic, as `--help` lists them. Written out rather than read from the settings
 * schema, which would load the server and make `--help` take seconds; `help-text.test.ts` checks that these are
 * exactly the schema's settings, so a setting added to the schema and not here fails the tests.
 */
export const SETTING_GROUPS: readonly SettingGroup[] = [
  {
    title: 'HTTP server',
    settings: [
      'PORT',
      'HOST',
      'SERVER_URL',
      'SERVER_AUTH_TOKEN',
      'BODY_LIMIT',
      'UPLOAD_LIMIT',
      'ATTACHMENT_MAX_BYTES',
      'SYNC_TIMEOUT_MS',
      'ROUTE_TIMEOUT_MS',
      'IDEMPOTENCY_KEY_TTL_MS',
    ],
  },
  {
    title: 'Storage and cluster',
    settings: ['DATA_DIR', 'DATABASE_URL', 'DATABASE_CREATE', 'REDIS_URL'],
  },
  { title: 'Logs', settings: ['LOG_LEVEL', 'LOG_FORMAT', 'REQUEST_LOG_LEVEL'] },
  {
    title: 'Agents and plugins',
    settings: [
      'CHARACTERS',
      'PLUGINS',
      'MCP_CALL_TIMEOUT_MS',
      'MCP_STDIO_COMMANDS',
      'AGENT_MANAGEMENT',
    ],
  },
  {
    title: 'Model',
    settings: [
      'MODEL_PROVIDER',
      'OPENAI_BASE_URL',
      'OPENAI_API_KEY',
      'MODEL',
      'MODEL_TIMEOUT_MS',
      'MODEL_TOOLS',
      'MODEL_INCLUDE_USAGE',
    ],
  },
  {
    title: 'Agent loop',
    settings: [
      'AGENT_MAX_STEPS',
      'TOOL_TIMEOUT_MS',
      'TOOL_MAX_PARALLEL',
      'TOOL_MAX_CALLS_PER_STEP',
      'TOOL_RESULT_LIMIT',
      'PROVIDER_TIMEOUT_MS',
      'EVALUATOR_TIMEOUT_MS',
      'APPROVAL_TIMEOUT_MS',
    ],
  },
  {
    title: 'Memory and long conversations',
    settings: ['PROMPT_TOKEN_BUDGET', 'CONVERSATION_SUMMARY', 'FACT_EXTRACTION'],
  },
  {
    title: 'Embeddings and knowledge',
    settings: [
      'EMBEDDING_MODEL',
      'EMBEDDING_URL',
      'EMBEDDING_API_KEY',
      'EMBEDDING_DIMENSIONS',
      'EMBEDDING_TIMEOUT_MS',
      'EMBEDDING_BATCH_SIZE',
      'MEMORY_VECTOR_INDEX',
      'KNOWLEDGE_PATH',
      'KNOWLEDGE_MAX_DOCUMENT_BYTES',
      'KNOWLEDGE_MAX_DOCUMENTS',
      'KNOWLEDGE_MAX_FILES_PER_REQUEST',
      'KNOWLEDGE_MAX_FRAGMENTS_PER_DOCUMENT',
      'KNOWLEDGE_RECALL_TOKENS',
    ],
  },
  {
    title: 'People (identities)',
    settings: [
      'AUTH_ISSUER',
      'AUTH_JWKS_URL',
      'AUTH_AUDIENCE',
      'AUTH_JWT_SECRET',
      'AUTH_CLOCK_SKEW_SECONDS',
      'AUTH_ROLES_CLAIM',
      'AUTH_NAME_CLAIM',
      'AUTH_ADMIN_ROLES',
      'AUTH_APPROVER_ROLES',
      'AUTH_ANONYMOUS',
      'AUTH_GUEST_TTL_SECONDS',
      'AUTH_JWKS_COOLDOWN_MS',
      'AUTH_DAILY_TOKENS',
      'AUTH_WEB_CLIENT_ID',
      'AUTH_WEB_SCOPE',
    ],
  },
  {
    title: 'Webhooks',
    settings: ['WEBHOOK_RETRY_DELAYS', 'WEBHOOK_PRIVATE_TARGETS', 'WEBHOOK_TIMEOUT_MS'],
  },
  {
    title: 'Proxy, hosts and rate limits',
    settings: [
      'TRUST_PROXY',
      'ALLOWED_HOSTS',
      'ALLOWED_ORIGINS',
      'RATE_LIMIT',
      'RATE_LIMIT_BURST',
      'RATE_LIMIT_PER_SECOND',
      'MAX_CONNECTIONS',
      'MAX_CONNECTIONS_PER_ADDRESS',
      'LIMIT_LOOPBACK',
    ],
  },
  {
    title: 'TEE',
    settings: ['TEE_MODE', 'TEE_VENDOR', 'WALLET_SECRET_SALT', 'DSTACK_SIMULATOR_ENDPOINT'],
  },
];

/** Help lines are wrapped at this width. */
const WIDTH = 110;

/** The groups, one per line (wrapped under the group's names): `  Title   NAME, NAME, ...`. */
function settingsList(): string {
  const indent = Math.max(...SETTING_GROUPS.map((group) => group.title.length)) + 4;
  return SETTING_GROUPS.map(({ title, settings }) => {
    const lines: string[] = [];
    let line = `  ${title.padEnd(indent - 2)}`;
    settings.forEach((name, index) => {
      const word = index < settings.length - 1 ? `${name},` : name;
      if (line.trim() !== title && line.length + 1 + word.length > WIDTH) {
        lines.push(line);
        line = ' '.repeat(indent) + word;
      } else {
        line += line.endsWith(' ') ? word : ` ${word}`;
      }
    });
    lines.push(line);
    return lines.join('\n');
  }).join('\n');
}

/** `parley --help`. */
export function helpText(version: string): string {
  return `parley ${version}: the Parley agent server

Usage: parley [command] [--character PATH]...

Commands:
  start     start the server (the default); SIGTERM or SIGINT stops it gracefully
  test      run every loaded plugin's test suites against a live in-process server; exit 1 on a failure
  doctor    check the setup (port, host, database, Redis, TEE, plugins and routes, model) and print a fix for
            each problem; read-only, so it also runs beside a running server
  reply     print one reply's steps (model calls, tool calls, their outcomes and errors) from a running server:
            parley reply <replyId> [--url http://host:port]; SERVER_AUTH_TOKEN is sent when set
  reembed   embed agents' memories again after EMBEDDING_MODEL changed (start refuses until then), with the
            settings start would use; stop the server first. parley reembed [--agent <id>]; an agent is switched
            wholly or not at all, and a failed run can be run again
  help      show this help

Options:
  -c, --character PATH   a character file (repeatable; added to those of CHARACTERS; with neither, the built-in
                         agent Eliza)
  -h, --help             show this help
  -v, --version          print the version

Settings come from the environment and from .env in the working directory (the environment wins). Each is
described in .env.example and in the README's settings table; running in production: docs/deploying.md and
docs/operating.md.

${settingsList()}

Examples:
  parley --character ada.json
  PORT=8080 SERVER_AUTH_TOKEN=s3cret parley
  parley doctor
  EMBEDDING_MODEL=nomic-embed-text EMBEDDING_URL=http://127.0.0.1:11434/v1 parley reembed
`;
}
