const MEBIBYTE = 1024 * 1024;

/**
 * Every default of a Parley server, in one place: the settings schema (`config/settings-schema.ts`) fills
 * unset settings from it, and `createServer`, the plugin routes and the plugin test app fall back to it when an
 * option is not given. So a server built in code and one started from the environment behave alike.
 *
 * This module imports nothing: every folder may read it without an import circle.
 */
export const DEFAULTS = {
  /** `PORT`, `port`. */
  port: 3000,
  /** `HOST`, `host`: loopback only until the operator says otherwise. */
  host: '127.0.0.1',
  /** `DATA_DIR`: the embedded database's folder, relative to the working directory. */
  dataDir: '.parley',
  /**
   * `DATABASE_CREATE`: whether start creates the database `DATABASE_URL` names when it does not exist: `auto`
   * when its host is this machine (loopback or a Unix socket), `true` always, `false` never.
   */
  databaseCreate: 'auto',
  /** `LOG_LEVEL`. */
  logLevel: 'info',
  /** `REQUEST_LOG_LEVEL`, `requestLogLevel`. */
  requestLogLevel: 'info',
  /** `BODY_LIMIT`, `bodyLimit`: largest JSON, text or form body in bytes. */
  bodyLimit: MEBIBYTE,
  /** `UPLOAD_LIMIT`, `uploadLimit`: largest multipart upload on plugin routes in bytes. */
  uploadLimit: 10 * MEBIBYTE,
  /** `ATTACHMENT_MAX_BYTES`, `attachmentMaxBytes`: largest file uploaded to a channel (`upload-media`) in bytes. */
  attachmentMaxBytes: 10 * MEBIBYTE,
  /** `SYNC_TIMEOUT_MS`, `syncTimeoutMs`: how long a `sync` channel message waits for the reply. */
  syncTimeoutMs: 60_000,
  /** `ROUTE_TIMEOUT_MS`, `routeTimeoutMs`: plugin route handler timeout when a route sets none. */
  routeTimeoutMs: 30_000,
  /** `sseKeepAliveMs`: keep-alive comment interval on `stream` replies. */
  sseKeepAliveMs: 15_000,
  /** `shutdownTimeoutMs`: how long `stop()` lets requests and streams finish. */
  shutdownTimeoutMs: 10_000,
  /** `socketMaxPayloadBytes`: largest socket transport frame. */
  socketMaxPayloadBytes: MEBIBYTE,
  /** `socketMaxMessageBytes`: largest socket `message` payload in bytes of JSON. */
  socketMaxMessageBytes: 64 * 1024,
  /** `socketRateLimit`: events a socket connection may send in a burst, then per second. */
  socketRateLimit: { burst: 40, perSecond: 20 },
  /** `socketMaxRooms`: rooms one socket connection may be in at once. */
  socketMaxRooms: 100,
  /** `MODEL_PROVIDER`: the offline ELIZA responder. */
  modelProvider: 'eliza',
  /** `OPENAI_BASE_URL` with `MODEL_PROVIDER=openai`. */
  openaiBaseUrl: 'https://api.openai.com/v1',
  /** `MODEL_TIMEOUT_MS`: how long one model call may take. */
  modelTimeoutMs: 60_000,
  /** `TEE_MODE`: no TEE. */
  teeMode: 'OFF',
  /** `TEE_VENDOR`. */
  teeVendor: 'phala',
  /** `RATE_LIMIT_BURST`, `RATE_LIMIT_PER_SECOND`, `rateLimit`: per client, per budget; clients remembered. */
  rateLimit: { burst: 60, perSecond: 10, maxClients: 10_000 },
  /** `connections`, `MAX_CONNECTIONS`, `MAX_CONNECTIONS_PER_ADDRESS`, `LIMIT_LOOPBACK`: the HTTP server's bounds. */
  connections: {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 60_000,
    keepAliveTimeoutMs: 5_000,
    checkIntervalMs: 1_000,
    maxConnections: 2_000,
    maxConnectionsPerAddress: 100,
    limitLoopback: false,
  },
  /** The bounds of the elizaOS components (`runtime.createComponent`) an agent's plugins store. */
  /** `agentManagement`: agents created, changed, started, stopped and deleted over HTTP. */
  agentManagement: {
    /** `AGENT_MANAGEMENT`: off, so that only the operator's character files say which agents run. */
    enabled: false,
    /** `maxAgents`: most agents created at run time, all processes together. */
    maxAgents: 100,
    /** `maxCharacterBytes`: largest character of an agent created at run time, in bytes of JSON. */
    maxCharacterBytes: 64 * 1024,
    /** How often a process reads the stored agents (the fallback when another process's notice is missed). */
    syncIntervalMs: 5_000,
  },
  agentComponents: {
    /** Largest `data` of one component, in bytes of JSON. */
    maxDataBytes: 256 * 1024,
    /** Most components one agent may hold. */
    maxPerAgent: 10_000,
  },
  /**
   * `AGENT_MAX_STEPS`, `TOOL_TIMEOUT_MS`..., `agentLoop`: the bounds of one reply's loop of model calls and tool
   * calls; a character's `settings` of the same names override them for that agent.
   */
  agentLoop: {
    /** Model calls that may call tools; the step after the last answers without tools. */
    maxSteps: 8,
    /** One tool call's deadline unless its action sets one. */
    toolTimeoutMs: 30_000,
    /** Tool calls of one step run at once; the rest wait their turn. */
    maxParallelTools: 4,
    /** Tool calls one step may make; beyond, each further call is answered with an error. */
    maxToolCallsPerStep: 16,
    /** Characters of one tool result given back to the model, clients and storage; beyond, cut with a marker. */
    toolResultLimit: 16_384,
    /** All providers of one model call, together. */
    providerTimeoutMs: 5_000,
    /** All evaluators of one reply, together. */
    evaluatorTimeoutMs: 30_000,
  },
  /** `PROMPT_TOKEN_BUDGET`, `CONVERSATION_SUMMARY`, `conversation`: long conversations (docs/memory.md). */
  conversation: {
    /**
     * A prompt's bound in (estimated) tokens: system prompt, context, running summary and the newest turns. 8,000
     * fits the smallest context windows still in use (Llama 3 8B, many local models) with room for the answer;
     * a character's `settings.PROMPT_TOKEN_BUDGET` sets its own.
     */
    promptTokenBudget: 8_000,
    /** Older turns are summarised by the model (`auto`: extractively for the offline model) or cut (`off`). */
    summary: 'auto',
    /** Most turns one reply summarises before it answers (a long imported channel); the rest after it. */
    maxInlineTurns: 2_000,
    /** Background summary updates at once per process, and how many may wait. */
    maxConcurrent: 2,
    maxQueued: 1_000,
  },
  /** `FACT_EXTRACTION`, `facts`: what agents remember about the people they talk with (docs/memory.md). */
  facts: {
    /**
     * `rules` (default): first-person statements read by rules, no model call; `model`: the agent's model extracts
     * them (one more model call after each reply); `off`: nothing is extracted or recalled.
     */
    extraction: 'rules',
    /** Extractions at once per process, and how many may wait (beyond, a reply's extraction is skipped). */
    maxConcurrent: 2,
    maxQueued: 100,
    /** Most facts taken from one reply, characters of one fact, facts kept per person and agent. */
    maxPerReply: 5,
    maxChars: 200,
    maxPerEntity: 100,
    /** Facts about the speaker a prompt carries. */
    recallCount: 10,
  },
  /** `KNOWLEDGE_*`: documents agents answer from (docs/memory.md, "Knowledge"). */
  knowledge: {
    /** Largest document, in bytes (a file of an upload, a JSON body's text, a character's file). */
    maxDocumentBytes: 5 * 1024 * 1024,
    /** Most documents one agent holds; most files one upload request carries. */
    maxDocumentsPerAgent: 1_000,
    maxFilesPerRequest: 10,
    /** Most fragments one document is split into (about 2 MB of text at the fragment size below). */
    maxFragmentsPerDocument: 2_000,
    /** A fragment's size and the overlap of two neighbours, in estimated tokens (3.5 characters a token). */
    fragmentTokens: 300,
    fragmentOverlapTokens: 40,
    /** Fragments one reply may carry, and their tokens in all; a vector hit below `minSimilarity` is dropped. */
    recallCount: 5,
    recallTokens: 1_200,
    minSimilarity: 0.2,
    /** `KNOWLEDGE_PATH`: the folder a character's `{path}` and `{directory}` knowledge is read from (and only it). */
    root: 'knowledge',
  },
  /** `APPROVAL_TIMEOUT_MS`, `approvals`: replies that wait for a person to approve an action call. */
  approvals: {
    /** How long a request waits for a decision; then the call is refused and the model told so. */
    timeoutMs: 3_600_000,
    /** How often each process expires requests and takes on replies ready to go on. */
    sweepMs: 1_000,
    /** How long a process holds a reply it continues before another may take it over (renewed meanwhile). */
    leaseMs: 30_000,
    /** How often a client following a reply that goes on in another process looks for its progress. */
    followPollMs: 250,
  },
  /** `IDEMPOTENCY_KEY_TTL_MS`, `idempotency`: what `Idempotency-Key` keeps, and for how long. */
  idempotency: {
    /** How long a key is kept after its first use (Stripe's 24 h); past it, the key is new again and removed. */
    keyTtlMs: 86_400_000,
    /** How long a process holds a keyed reply it produces before a retry may take it over (renewed meanwhile). */
    replyLeaseMs: 30_000,
    /** How often each process removes keys past the window. */
    sweepMs: 10_000,
    /** The most keys one removal takes. */
    sweepBatch: 1_000,
  },
  /** `mcpServer`: `/mcp`, the agents served as MCP tools. */
  mcpServer: {
    /**
     * Most JSON-RPC messages one POST may batch (MCP 2025-03-26 clients; 2025-06-18 removed batching and is
     * refused any). Each `tools/call` in a batch takes a token of the caller's rate budget.
     */
    maxBatchMessages: 10,
  },
  /** `MCP_CALL_TIMEOUT_MS`, `mcp`: the tools of the MCP servers characters name (`settings.mcp`). */
  mcp: {
    /** One MCP tool call's deadline unless the server or the character sets one. */
    callTimeoutMs: 30_000,
    /** Connecting to a server (spawn, initialize, list tools), a listing and a ping: each within this. */
    connectTimeoutMs: 10_000,
    /** A server that is down is retried after this, then twice as long each time, up to `reconnectMaxMs`. */
    reconnectMinMs: 1_000,
    reconnectMaxMs: 60_000,
    /** How often a connected server is pinged; one that does not answer is down. */
    pingMs: 30_000,
    /** Most tools taken from one server. */
    maxTools: 128,
    /**
     * What of a server's tools reaches the model, in characters: a tool's description (and title), a description
     * inside its input schema (cut with a marker beyond), its input schema (a larger tool is left out), and all
     * of one server's descriptions and schemas (the tools past it are left out). Every model request carries them.
     */
    maxDescriptionChars: 2_048,
    maxParameterDescriptionChars: 512,
    maxSchemaChars: 32_768,
    maxServerChars: 131_072,
  },
  /** Bounds and intervals no setting changes (yet): here so that every default is in one place. */
  internals: {
    /** The PostgreSQL pool of the database, and of the channel sequencer's locks (connections). */
    databasePoolSize: 10,
    sequencerPoolSize: 4,
    /** How long a channel's ticket (PostgreSQL sequencer) is held without renewal, and its wake-up poll. */
    sequencerLeaseMs: 30_000,
    sequencerPollMs: 1_000,
    /** Scheduled messages: the claim poll, how long a claim holds, attempts before `failed`. */
    schedulePollMs: 250,
    scheduleLeaseMs: 30_000,
    scheduleMaxAttempts: 5,
    /** How long an ended reply stays readable by id (events, resume). */
    replyLingerMs: 10_000,
    /** Messages of a channel a reply reads as its history. */
    historyLimit: 20,
    /** A channel's `last_message_at` is written at most once per this interval (storage/channel-activity.ts). */
    channelActivityIntervalMs: 1_000,
  },
  /** `WEBHOOK_*`, `webhooks`: outbound webhooks. */
  webhooks: {
    /** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h: Svix's schedule, about 18 hours over seven attempts. */
    retryDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000],
    timeoutMs: 10_000,
    pollMs: 250,
    maxInFlight: 16,
    perSubscription: 4,
    /** After this, an attempt waits on its slow receiver without holding one of the `maxInFlight` slots. */
    slowAfterMs: 1_000,
    maxSubscriptions: 100,
  },
} as const;

/** The address a server's own links use before it has bound its port. */
export function defaultServerUrl(port: number = DEFAULTS.port): string {
  return `http://localhost:${port}`;
}
