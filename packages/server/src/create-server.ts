import type { AgentRuntime, Character, Plugin } from '@parley/plugin-sdk';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { createAgentProfiles } from './agents/agent-registry';
import { DEFAULTS, defaultServerUrl } from './defaults';
import type { AgentRegistry } from './agents/agent-registry';
import type { AgentProfile } from './agents/agent-profile';
import { ParleyAgentRuntime } from './agents/agent-runtime';
import type { AppEnv } from './http/app-env';
import { applyConnectionLimits, type ConnectionLimitOptions } from './guards/connection-limits';
import type { TrustProxy } from './guards/client-address';
import { createHttpApp } from './http/create-app';
import { AuditLog, AuditStore, auditRoutes } from './audit';
import { createRequestHostPolicy } from './guards/host-allow-list';
import { createSocketOriginPolicy } from './guards/origin-guard';
import type { RequestLogOptions } from './http/request-log';
import type { ParleyMetrics } from './metrics';
import { warnIfExposedWithoutToken } from './guards/exposure-warning';
import { observingReplies } from './metrics/observe-reply';
import { apiDocsRoutes } from './api-docs';
import { messagingRoutes } from './http/routes/messaging-routes';
import { attachmentRoutes } from './http/routes/attachment-routes';
import { AttachmentStore } from './attachments/attachment-store';
import { ChannelNamer } from './channels/channel-namer';
import { ChannelService } from './channels/channel-service';
import { createChannelEvents } from './channels/channel-events';
import { channelRoutes } from './channels/channel-routes';
import { ChannelAccess, provideChannelAccess } from './identity/channel-access';
import { ownMemories } from './identity/own-memories';
import { identityFromEnv, identityRoutes, type IdentityResolver, signInRoutes } from './identity';
import { mcpRoutes } from './mcp/server/mcp-routes';
import { McpClients, type McpClientLimits } from './mcp/client/mcp-clients';
import { checkStdioCommands, mcpServersOf } from './mcp/client/mcp-settings';
import { serverRoutes } from './http/routes/server-routes';
import { AgentManager, type AgentManagementOptions } from './agents/agent-manager';
import { openaiRoutes } from './openai/openai-routes';
import { a2aRoutes } from './a2a/a2a-routes';
import { uiChatRoutes } from './ui-chat/ui-chat-routes';
import { serveAgentChanges } from './agents/agent-changes';
import { agentRoutes } from './http/routes/agent-routes';
import { panelRoutes } from './http/routes/panel-routes';
import { runRoutes } from './http/routes/run-routes';
import { jobRoutes } from './http/routes/job-routes';
import { messageServerRoutes } from './http/routes/message-server-routes';
import { sessionRoutes } from './sessions/session-routes';
import { ManagedAgentStore } from './storage/managed-agent-store';
import { SessionStore } from './storage/session-store';
import { databaseProbe, roomsProbe } from './health';
import { createLogger } from './logger';
import { PostgresChannelSequencer } from './messaging/channel-sequencer-postgres';
import { roomDelivery } from './reply/delivery/deliver-to-room';
import { MessagingService, type ReplyLimits } from './messaging/messaging-service';
import { ApprovalStore } from './reply/approvals/approval-store';
import { serveReplyPeers } from './socket/reply-peers';
import { createElizaModel } from './models';
import { DailyTokenBudget } from './guards/daily-token-budget';
import type { ModelProvider } from './models/model-provider';
import { secretsOf, serverSecretsOf, type AgentLoopLimits } from './reply/loop/loop-limits';
import { registerSecretValues } from './redaction/redact';
import {
  callAction,
  type ActionCallRequest,
  type ActionCallResult,
} from './reply/tools/call-action';
import { loadPlugins, pluginRoutes, type PluginRouteEntry } from './plugins';
import { ScheduledMessageDispatcher, ScheduledMessageStore } from './scheduling';
import { createLifecycle } from './server-lifecycle';
import {
  createSocketServer,
  type ParleySocketServer,
  socketServerReady,
  socketServerRooms,
  type SocketServerOptions,
} from './socket/create-socket-server';
import { createSocketBroadcaster } from './socket/socket-broadcaster';
import { serveSocketProtocol } from './socket/socket-protocol';
import { createDatabase, type DatabaseLocation } from './storage/create-database';
import { AgentComponentStore } from './storage/agent-component-store';
import { IdempotencyStore } from './storage/idempotency-store';
import { IdempotencySweep } from './messaging/idempotency-sweep';
import { MessageStore } from './storage/message-store';
import {
  createDatabaseTeeAgentStore,
  createTeeService,
  TEE_OFF,
  teeRoutes,
  type TeeConfig,
} from './tee';
import type { RateLimitOptions } from './guards/rate-limit';
import { createWebhooks, type WebhookOptions } from './webhooks';
import { SERVER_PACKAGE_VERSION } from './api-docs/package-version';
import { capturesMessageContent, createReplyTelemetry, ensureContextManager } from './tracing';
import { ReceiptService, receiptIdOf } from './receipts/receipt-service';
import { receiptRoutes } from './receipts/receipt-routes';
import type { TracerProvider } from '@opentelemetry/api';
import { ChannelSummaryStore } from './memory/summary/channel-summary-store';
import {
  ConversationWindows,
  type ConversationSettings,
} from './memory/summary/conversation-window';
import type { FactSettings } from './memory/people/fact-settings';
import { createKnowledge, knowledgeRoutes, type KnowledgeSettings } from './knowledge';
import { PeopleMemory } from './memory/people/people-memory';
import { memoryFactStore } from './memory/people/memory-fact-store';
import { memoryRoutes } from './http/routes/memory-routes';
import { elizaMemoryRoutes } from './http/routes/eliza-memory-routes';
import { createMemoryService, type MemoryService } from './memory';
import { embeddingsFromEnv, type EmbeddingProvider } from './models/embeddings';

/** Options of {@link createServer}. Every field has a default (see `defaults.ts`). */
export interface ServerOptions {
  /** Port to listen on (default 3000; 0 picks a free one). */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** The agents; the first is the default agent. With none, the built-in Eliza runs. */
  characters?: Character[];
  /** Plugins, the same for every agent or chosen per agent. */
  plugins?: Plugin[] | ((agent: AgentRuntime) => Plugin[]);
  /** Who asks (default: from the `AUTH_*` settings of `env`; none: every request is the operator, as before). */
  identity?: IdentityResolver;
  /** Environment used as the settings fallback of `runtime.getSetting` (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Logger (default: pino on stdout at `info`). */
  logger?: Logger;
  /** When set, built-in endpoints, the socket and non-public plugin routes require `x-api-key` equal to it. */
  authToken?: string;
  /** Where data lives (default: embedded PGlite in `./.parley`). */
  database?: DatabaseLocation;
  /** The model agents answer with (default: the offline ELIZA responder). */
  model?: ModelProvider;
  /** The TEE (default: off). */
  tee?: TeeConfig;
  /**
   * Processes that share rooms (default: the PostgreSQL database when `database` is one, else none: rooms live
   * in this process).
   */
  cluster?: SocketServerOptions['cluster'];
  /** Maximum JSON body size in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** Maximum multipart upload size in bytes on plugin routes (default 10 MiB). */
  uploadLimit?: number;
  /** Largest file uploaded to a channel (`POST …/upload-media`) in bytes (default 10 MiB, `ATTACHMENT_MAX_BYTES`). */
  attachmentMaxBytes?: number;
  /** Plugin route handler timeout when a route sets none (default 30000 ms, then 504). */
  routeTimeoutMs?: number;
  /** How long a `sync` channel message waits for the reply (default 60000 ms, then 504). */
  syncTimeoutMs?: number;
  /** Keep-alive comment interval on `stream` replies (default 15000 ms). */
  sseKeepAliveMs?: number;
  /** Bounds on model calls and on replies waiting (see {@link ReplyLimits}). */
  replyLimits?: Partial<ReplyLimits>;
  /**
   * Agents created, changed, started, stopped and deleted over HTTP: off unless `enabled` (`AGENT_MANAGEMENT`);
   * bounds on how many and how large (see `DEFAULTS.agentManagement`).
   */
  agentManagement?: Partial<AgentManagementOptions & { syncIntervalMs: number }>;
  /** Bounds of each reply's loop of model and tool calls (see `DEFAULTS.agentLoop`); characters may override. */
  agentLoop?: Partial<AgentLoopLimits>;
  /** Long conversations: the prompt's token budget and the running summary (see `DEFAULTS.conversation`). */
  conversation?: Partial<ConversationSettings>;
  /** Facts about the speaker remembered after replies (see `DEFAULTS.facts`). */
  facts?: Partial<FactSettings>;
  /** Knowledge's limits, recall budget and folder (see `DEFAULTS.knowledge`). */
  knowledge?: Partial<KnowledgeSettings>;
  /** Replies that wait for a person's approval: how long a request waits, how often they are swept. */
  approvals?: Partial<Record<keyof typeof DEFAULTS.approvals, number>>;
  /**
   * `Idempotency-Key`: how long a key is kept (default 24 h), how long a keyed reply is held by its process
   * before a retry takes it over, how often and how many expired keys each process removes.
   */
  idempotency?: Partial<Record<keyof typeof DEFAULTS.idempotency, number>>;
  /** Largest socket transport frame in bytes; larger frames close the connection (default 1 MiB). */
  socketMaxPayloadBytes?: number;
  /** Largest socket `message` payload in bytes of JSON, answered with an error (default 64 KiB). */
  socketMaxMessageBytes?: number;
  /** Socket events a connection may send in a burst (default 40) and per second after it (default 20). */
  socketRateLimit?: { burst: number; perSecond: number };
  /** Rooms one socket connection may be in at once (default 100). */
  socketMaxRooms?: number;
  /** New socket connections per client address: a burst (default 60), then per second (default 20). */
  socketHandshakeLimit?: { burst: number; perSecond: number };
  /** How often scheduled messages are looked for (default 250 ms). */
  schedulerPollMs?: number;
  /** Where to count requests, replies, model time and queues (`createMetrics()`; default: nowhere). */
  metrics?: ParleyMetrics;
  /** Level of the one log line per request (default `info`; `silent` for none). */
  requestLogLevel?: RequestLogOptions['requestLogLevel'];
  /** Called with each request's log entry (default: counted in `metrics` when given). */
  onRequest?: RequestLogOptions['onRequest'];
  /** How long `stop()` lets in-flight requests and streams finish before closing them (default 10000 ms). */
  shutdownTimeoutMs?: number;
  /**
   * How long a stopping server keeps answering, with `Connection: close` and readiness failing, before it
   * stops listening (default 1000 ms, at most `shutdownTimeoutMs`).
   */
  drainGraceMs?: number;
  /** Header, request and keep-alive timeouts and connection caps of the HTTP server (safe defaults). */
  connections?: ConnectionLimitOptions;
  /**
   * Host names requests may carry (`*` any). Default: the loopback names when `host` is loopback, any
   * otherwise.
   */
  allowedHosts?: string[];
  /** Browser origins, besides the server's own and loopback ones, allowed to call the REST interface. */
  allowedOrigins?: string[];
  /**
   * Per-client rate limits on messaging, the other built-in endpoints (health aside) and plugin routes, each
   * its own budget (default 60 at once, 10/s); `false`: none.
   */
  rateLimit?: RateLimitOptions | false;
  /**
   * Which proxies' `X-Forwarded-For` names the client, for rate limits and socket handshakes: a list of proxy
   * addresses or CIDR blocks (`loopback` for 127.0.0.0/8 and ::1), `true` for whatever peer is directly in
   * front, `false` none (default: `rateLimit.trustProxy`, else false).
   */
  trustProxy?: TrustProxy;
  /** Outbound webhooks: retry schedule, private targets allowed, deadlines (see {@link WebhookOptions}). */
  webhooks?: WebhookOptions;
  /** The MCP servers characters name (`settings.mcp`): call deadline, reconnect backoff… (see `DEFAULTS.mcp`). */
  mcp?: Partial<McpClientLimits>;
  /**
   * Where spans go: a span per HTTP request (continuing an incoming `traceparent`), `invoke_agent` per reply,
   * `chat` per model call, `execute_tool` per tool call. Default: none (tracing off, nothing started). The app
   * passes the OpenTelemetry SDK's when `OTEL_TRACES_EXPORTER` is set (`startTracing`); tests pass their own.
   */
  tracerProvider?: TracerProvider;
  /**
   * `false`: no tracing code at all on a reply's path (no trace context carried, no span named), for measuring
   * what tracing off costs (the bench); ignored with a `tracerProvider`. Default: tracing off costs a lookup.
   */
  traceContext?: false;
  /**
   * Message contents, tool arguments and results on spans (default: `env`'s
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is `true`).
   */
  captureMessageContent?: boolean;
  /** The embedder of agents' memories (default: `EMBEDDING_*` settings from `env`, else the offline one). */
  embeddings?: EmbeddingProvider;
}

/**
 * Registers an agent's secrets (its character's `secrets` and secret-looking settings) with the one redaction for
 * as long as its runtime runs: created at start or at run time (`POST /api/agents`), until it is replaced,
 * deleted or the server stops (`stopServices`). Log lines, errors and views of the whole process then never show
 * them, whichever agent's path they cross.
 */
function withRedactedSecrets(
  profile: AgentProfile,
  runtime: ParleyAgentRuntime,
): ParleyAgentRuntime {
  const unregister = registerSecretValues(secretsOf(profile.character));
  const stopServices = runtime.stopServices.bind(runtime);
  runtime.stopServices = async () => {
    try {
      await stopServices();
    } finally {
      unregister();
    }
  };
  return runtime;
}

/** A running (or ready-to-run) Parley server. */
export interface ParleyServer {
  /** The hono app; more routes may be added before `start()`. */
  readonly app: Hono<AppEnv>;
  /** The socket.io server. */
  readonly io: ParleySocketServer;
  /** The agents' runtimes, as plugins see them; the first is the default agent. */
  readonly agents: AgentRegistry<AgentRuntime>;
  readonly logger: Logger;
  /** The base address, e.g. `http://127.0.0.1:3000` (known after `start()`). */
  readonly url: string;
  /** Agents' memories, their embedder and what each reply recalls (docs/memory.md). */
  readonly memory: MemoryService;
  /** Migrates the database, loads plugins, binds the port and serves HTTP and the socket. */
  start(): Promise<{ url: string; port: number }>;
  /**
   * Runs one action of an agent as its loop would (arguments checked, deadline, callback posting as the agent),
   * outside any reply: what the plugin test harness drives actions with. Unknown agent: NOT_FOUND.
   */
  callAction(request: ActionCallRequest): Promise<ActionCallResult>;
  /**
   * Stops gracefully: stops accepting connections, closes sockets, lets in-flight requests and streams finish
   * up to the shutdown deadline, then ends what is left and closes the database. Safe to call more than once.
   */
  stop(): Promise<void>;
}

/** The server's tracer, on a provider given (and the active span then follows async work); none without. */
function tracerOf(provider: TracerProvider | undefined) {
  if (!provider) return undefined;
  ensureContextManager();
  return provider.getTracer('@parley/server', SERVER_PACKAGE_VERSION);
}

function trustProxyOf(options: ServerOptions): TrustProxy {
  return (
    options.trustProxy ?? (options.rateLimit ? options.rateLimit.trustProxy : undefined) ?? false
  );
}

/**
 * Creates a Parley server: hono on a node HTTP server with socket.io on the same port, agents, storage,
 * messaging, scheduled messages, plugin routes and TEE attestation. Everything is composed here, in
 * dependency order, and nothing is attached afterwards.
 *
 * @example
 * const server = createServer({ port: 3000, plugins: [myPlugin] });
 * const { url } = await server.start();
 * process.once('SIGTERM', () => void server.stop());
 */
export function createServer(options: ServerOptions = {}): ParleyServer {
  const logger = options.logger ?? createLogger();
  const env = options.env ?? process.env;
  const bodyLimit = options.bodyLimit ?? DEFAULTS.bodyLimit;
  const host = options.host ?? DEFAULTS.host;
  let port = options.port ?? DEFAULTS.port;
  let serverUrl = defaultServerUrl(port);

  const profiles = createAgentProfiles(options.characters ?? []);
  // The MCP servers characters name: a bad `settings.mcp` is refused here, before anything is opened.
  const mcpServers = profiles.list().map((profile) => {
    const servers = mcpServersOf(profile.character);
    checkStdioCommands(profile.character, servers, options.mcp?.stdioCommands);
    return servers;
  });
  const location = options.database ?? { kind: 'pglite', dataDir: DEFAULTS.dataDir };
  // Without a tracer provider, nothing of tracing is set up: no span is made, no statement wrapped.
  const tracer = tracerOf(options.tracerProvider);
  const database = createDatabase(location, { tracer });
  // Processes sharing a PostgreSQL database share its channels: one order per channel across all of them.
  const sequencer =
    location.kind === 'postgres'
      ? new PostgresChannelSequencer({
          connectionString: location.url,
          logger,
          queryTimeoutMs: database.deadlineMs,
        })
      : undefined;
  // One process owns an embedded database, so what it wrote can be remembered; with PostgreSQL another process
  // may write too.
  const singleWriter = database.kind === 'pglite';
  // Agents' memories and their embedder; knowledge and facts register their recallers on it.
  const memory = createMemoryService({
    db: database.db,
    embeddings: options.embeddings ?? embeddingsFromEnv(env),
    logger,
    sync: () => database.sync(),
    exclusive: singleWriter,
    ...(database.copyBinary ? { copyBinary: database.copyBinary.bind(database) } : {}),
  });
  const store = new MessageStore(database.db, {
    sync: () => database.sync(),
    recentCache: singleWriter ? 20 : 0,
    deadlineMs: database.deadlineMs,
    onActivityError: (error) => logger.warn({ err: error }, 'channel activity not written'),
  });
  // Who asks: the operator token, people's JWTs, guests (identity/; no AUTH_* setting: today's behaviour).
  const identity = options.identity ?? identityFromEnv(env, options.authToken);
  const io = createSocketServer({
    logger,
    authToken: options.authToken,
    identity,
    maxPayloadBytes: options.socketMaxPayloadBytes ?? DEFAULTS.socketMaxPayloadBytes,
    handshakeLimit: options.socketHandshakeLimit,
    isAllowedHost: createRequestHostPolicy({
      allowedHosts: options.allowedHosts,
      bindHost: host,
    }),
    isAllowedOrigin: createSocketOriginPolicy(options),
    trustProxy: trustProxyOf(options),
    cluster:
      options.cluster ??
      (location.kind === 'postgres'
        ? { kind: 'postgres', connectionString: location.url }
        : undefined),
  });
  const webhooks = createWebhooks(database.db, {
    ...options.webhooks,
    logger,
    sync: () => database.sync(),
    ...(options.metrics ? { observer: options.metrics.webhooks } : {}),
    tracer,
    receiptIdOf: (messageId) => (receipts?.enabled ? receiptIdOf(messageId) : undefined),
  });
  const broadcaster = createSocketBroadcaster(io);
  const clustered = options.cluster !== undefined || location.kind === 'postgres';
  // Built before the messaging service it answers for: a cancel sent to this process reaches the one running it.
  const peers = clustered ? serveReplyPeers(io, () => messaging, logger) : undefined;
  // With AUTH_DAILY_TOKENS, each signed-in person's model calls are counted and refused once their day is spent.
  const dailyTokens = identity.configured ? identity.settings.AUTH_DAILY_TOKENS : undefined;
  const unbudgeted = options.model ?? createElizaModel();
  const model =
    dailyTokens === undefined
      ? unbudgeted
      : new DailyTokenBudget({
          db: database.db,
          sync: () => database.sync(),
          limit: dailyTokens,
        }).guard(unbudgeted);
  const telemetry = createReplyTelemetry({
    tracer,
    metrics: options.metrics,
    modelName: model.name,
    captureContent: options.captureMessageContent ?? capturesMessageContent(env),
  });
  const serverSecrets = serverSecretsOf(env, options.authToken);
  // Every redaction of this process (logs, errors, readiness, views, webhooks) removes these values too (each
  // agent's own: `withRedactedSecrets`, for as long as its runtime runs).
  const unregisterSecrets = registerSecretValues(serverSecrets);
  const agentLoop: AgentLoopLimits = { ...DEFAULTS.agentLoop, ...options.agentLoop };
  const idempotencyLimits = { ...DEFAULTS.idempotency, ...options.idempotency };
  const idempotencyStore = new IdempotencyStore(database.db, {
    ...idempotencyLimits,
    sync: () => database.sync(),
    exclusive: singleWriter,
    ...(database.copyBinary ? { copyBinary: database.copyBinary.bind(database) } : {}),
  });
  const idempotencySweep = new IdempotencySweep(idempotencyStore, { ...idempotencyLimits, logger });
  // Files uploaded to channels: stored in the database, read into the prompt of the messages that list them.
  const attachments = new AttachmentStore(database.db, () => database.sync());
  // Admin actions, appended to audit_log and told as `audit` log lines (audit/).
  const audit = new AuditLog(new AuditStore(database.db, () => database.sync()), logger);
  // What agents remember of the people they talk with (facts after replies, recalled in any channel), and the
  // running summaries of long channels.
  const people = new PeopleMemory({
    settings: { ...DEFAULTS.facts, ...options.facts },
    facts: memoryFactStore(memory.store, { embeddings: memory.embeddings, logger }),
    model,
    logger,
  });
  if (people.enabled) memory.addRecaller(people.recaller);
  // Documents agents answer from: a character's `knowledge` and uploads, recalled for each message.
  const knowledge = createKnowledge({
    memory,
    settings: { ...DEFAULTS.knowledge, ...options.knowledge },
    logger,
  });
  memory.addRecaller(knowledge.recaller);
  const summaries = new ChannelSummaryStore(database.db, { exclusive: singleWriter });
  // Channels made as `New chat` are named after their first message once it is answered (a summary, else its
  // first words).
  const namer = new ChannelNamer({ channels: () => channels, model, logger });
  // Receipts of stored replies, signed by the agents' TEE keys: built once the TEE service exists (below). The
  // closures handed to messaging and the webhooks read it later, so it is declared here and assigned once there.
  // eslint-disable-next-line prefer-const -- assigned after the closures that read it are made
  let receipts: ReceiptService | undefined;
  const messaging: MessagingService = new MessagingService({
    store,
    agents: profiles,
    model,
    logger,
    broadcaster,
    consumers: [
      roomDelivery(broadcaster),
      ...(options.metrics ? [observingReplies(options.metrics)] : []),
      webhooks.failedReplies,
      (stream) => receipts?.consumer(stream),
    ],
    idempotency: idempotencyStore,
    limits: options.replyLimits,
    sequencer,
    peers,
    // Read at each reply, once the runtimes below exist: the agents' plugins add to their abilities as they load.
    abilitiesOf: (agentId) => agents.find(agentId)?.abilities,
    loopLimits: agentLoop,
    serverSecrets,
    approvals: {
      ...options.approvals,
      store: new ApprovalStore(database.db, () => database.sync()),
      onDecided: (decided, { reason, decidedBy, channelId }) =>
        audit.record({
          action: 'approval.decide',
          target: decided.replyId,
          detail: {
            toolCallId: decided.toolCallId,
            decision: decided.status,
            channelId,
            decidedBy,
            hasReason: reason !== undefined,
          },
        }),
    },
    telemetry,
    attachments,
    recallers: memory.recallers,
    afterReply: [
      (agent, message, reply) => people.afterReply(agent, message, reply),
      (agent, message, reply) => namer.afterReply(agent, message, reply),
    ],
    conversation: new ConversationWindows({
      settings: { ...DEFAULTS.conversation, ...options.conversation },
      summaries,
      messages: store,
      model,
      logger,
    }),
    receiptIdOf: (messageId) => (receipts?.enabled ? receiptIdOf(messageId) : undefined),
    ...(options.traceContext === false && !tracer ? { traceContext: false } : {}),
  });
  options.metrics?.watch({
    queues: { replies: () => messaging.pendingReplies },
    ...(database.poolState ? { databasePool: () => database.poolState!() } : {}),
  });
  const scheduler = new ScheduledMessageDispatcher({
    store: new ScheduledMessageStore(database.db, () => database.sync()),
    messaging,
    agents: profiles,
    logger,
    pollIntervalMs: options.schedulerPollMs,
    tracer,
  });
  const components = new AgentComponentStore(database.db, DEFAULTS.agentComponents, () =>
    database.sync(),
  );
  const makeRuntime = (profile: AgentProfile) =>
    new ParleyAgentRuntime(profile, {
      env,
      serverUrl: () => serverUrl,
      logger: logger.child({ agent: profile.character.name }),
      services: {
        sendMessage: async (agent, post) => ({
          id: (await messaging.postAgentMessage(agent, post)).id,
        }),
        scheduleMessage: (agent, schedule) => scheduler.schedule(agent, schedule),
        sendControl: (control) => messaging.sendControl(control),
      },
      model,
      providerTimeoutMs: agentLoop.providerTimeoutMs,
      components,
      memory,
    });
  // Each runtime, made at start or at run time, has its secrets redacted everywhere while it runs.
  const runtimeOf = (profile: AgentProfile) => withRedactedSecrets(profile, makeRuntime(profile));
  const agents = profiles.map(runtimeOf);
  const agentManager: AgentManager = new AgentManager(
    {
      profiles,
      runtimes: agents,
      makeRuntime: runtimeOf,
      store: new ManagedAgentStore(database.db, () => database.sync()),
      logger,
      ...(clustered ? { notify: serveAgentChanges(io, () => agentManager, logger) } : {}),
    },
    { ...DEFAULTS.agentManagement, ...options.agentManagement },
  );
  const mcpClients = new McpClients(
    agents.list().map((agent, index) => ({ agent, servers: mcpServers[index] ?? [] })),
    { ...DEFAULTS.mcp, ...options.mcp },
    logger,
  );
  const tee = createTeeService({
    config: options.tee ?? TEE_OFF,
    logger,
    store: createDatabaseTeeAgentStore(database.db),
  });
  receipts = new ReceiptService({
    db: database.db,
    sync: () => database.sync(),
    tee,
    logger,
    exclusive: singleWriter,
    messages: store,
  });
  const replyReceipts = receipts;

  const channelAccess = new ChannelAccess(database.db, { remember: singleWriter });
  serveSocketProtocol(
    io,
    messaging,
    {
      access: channelAccess,
      maxMessageBytes: options.socketMaxMessageBytes ?? DEFAULTS.socketMaxMessageBytes,
      rateBurst: options.socketRateLimit?.burst ?? DEFAULTS.socketRateLimit.burst,
      ratePerSecond: options.socketRateLimit?.perSecond ?? DEFAULTS.socketRateLimit.perSecond,
      maxRooms: options.socketMaxRooms ?? DEFAULTS.socketMaxRooms,
    },
    logger,
    tracer,
  );
  const app = createHttpApp({
    logger,
    authToken: options.authToken,
    identity,
    bodyLimit,
    bindHost: host,
    requestLogLevel: options.requestLogLevel,
    onRequest:
      options.onRequest ??
      (options.metrics && ((entry) => options.metrics!.observeHttpRequest(entry))),
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    rateLimit: options.rateLimit,
    trustProxy: trustProxyOf(options),
    tracer,
    audit,
  });
  app.use(provideChannelAccess(channelAccess));
  if (identity.configured) app.route('/', identityRoutes(identity, identity.settings));
  // Always there: the chat page asks it whether people sign in here (no: `signIn` null).
  app.route('/', signInRoutes({ resolver: identity, logger }));
  app.route(
    '/',
    serverRoutes({
      authToken: options.authToken,
      agentStatuses: () => agentManager.list(),
      readiness: [
        databaseProbe(database.db),
        roomsProbe(() => socketServerRooms(io)),
        // A stopping server takes no new traffic: load balancers move it elsewhere during the drain.
        () => Promise.resolve({ name: 'accepting', ok: !lifecycle.draining }),
        ...(mcpClients.configured ? [mcpClients.readinessProbe()] : []),
      ],
    }),
  );
  app.route('/', agentRoutes(agentManager));
  app.route(
    '/',
    knowledgeRoutes(
      knowledge.service,
      async (agentId) => void (await agentManager.details(agentId)),
    ),
  );
  app.route('/', teeRoutes(tee));
  const channels = new ChannelService({
    database,
    events: createChannelEvents({ io, broadcaster, messages: store, clustered, logger }),
    interrupt: async (channelId) =>
      messaging.interruptHere(channelId) + (peers ? await peers.interrupt(channelId) : 0),
    isAgent: (agentId) => profiles.find(agentId) !== undefined,
    logger,
    onRemoved: (removal) => replyReceipts.recordRemoval(removal),
    onChannelDeleted: (channelId) => channelAccess.forgetChannel(channelId),
    settleActivity: () => store.settleActivity(),
  });
  app.route('/', channelRoutes(channels, store, channelAccess));
  const agentExists = (agentId: string) => agents.find(agentId) !== undefined;
  app.route(
    '/',
    memoryRoutes({ store: memory.store, agentExists, summaries, entityOf: ownMemories }),
  );
  app.route(
    '/',
    elizaMemoryRoutes({ store: memory.store, messages: store, channels, summaries, agentExists }),
  );
  app.route('/', receiptRoutes(replyReceipts));
  app.route(
    '/',
    attachmentRoutes(attachments, {
      maxBytes: options.attachmentMaxBytes ?? DEFAULTS.attachmentMaxBytes,
    }),
  );
  // Every face that answers a reply (sync, or server-sent events) waits and keeps alive alike.
  const replyTimings = {
    syncTimeoutMs: options.syncTimeoutMs ?? DEFAULTS.syncTimeoutMs,
    sseKeepAliveMs: options.sseKeepAliveMs ?? DEFAULTS.sseKeepAliveMs,
  };
  app.route(
    '/',
    messagingRoutes(messaging, {
      ...replyTimings,
      access: channelAccess,
    }),
  );
  app.route(
    '/',
    sessionRoutes({
      sessions: new SessionStore(database.db, () => database.sync()),
      channels,
      agents: agentManager,
      messaging,
      ...replyTimings,
    }),
  );
  app.route(
    '/',
    messageServerRoutes({
      agents: agentManager,
      channels: channels.channels,
    }),
  );
  app.route('/', webhooks.routes);
  app.route('/', auditRoutes(audit.store));
  app.route(
    '/',
    mcpRoutes({
      agents: profiles,
      messaging,
      syncTimeoutMs: replyTimings.syncTimeoutMs,
    }),
  );
  app.route(
    '/',
    openaiRoutes({
      agents: profiles,
      messaging,
      ...replyTimings,
    }),
  );
  app.route(
    '/',
    uiChatRoutes({
      agents: profiles,
      messaging,
      store,
      sseKeepAliveMs: replyTimings.sseKeepAliveMs,
    }),
  );
  app.route(
    '/',
    a2aRoutes({
      agents: profiles,
      messaging,
      authRequired: Boolean(options.authToken),
      sseKeepAliveMs: replyTimings.sseKeepAliveMs,
      version: SERVER_PACKAGE_VERSION,
      db: database.db,
      actionsOf: (agentId) =>
        (agents.find(agentId)?.abilities?.actions ?? []).map((entry) => ({
          name: entry.toolName,
          description: entry.action.description,
        })),
    }),
  );
  let pluginEntries: readonly PluginRouteEntry[] = [];
  app.route('/', apiDocsRoutes({ pluginRoutes: () => pluginEntries, serverUrl: () => serverUrl }));
  app.route(
    '/',
    panelRoutes(agentManager, () => pluginEntries),
  );
  app.route('/', runRoutes(agentManager, messaging, store));
  app.route('/', jobRoutes(messaging, store, database.db));

  async function mountPlugins() {
    const plugins = options.plugins ?? [];
    const table = await loadPlugins({
      agents: agents.list(),
      pluginsFor: (agent) => (typeof plugins === 'function' ? plugins(agent) : plugins),
      logger,
    });
    pluginEntries = table.entries;
    // Last, so that a STATIC folder at a broad path cannot hide a built-in route.
    app.route(
      '/',
      pluginRoutes(table, {
        authToken: options.authToken,
        bodyLimit,
        uploadLimit: options.uploadLimit,
        routeTimeoutMs: options.routeTimeoutMs,
      }),
    );
  }

  const lifecycle = createLifecycle({
    app,
    io,
    logger,
    host,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? DEFAULTS.shutdownTimeoutMs,
    drainGraceMs: options.drainGraceMs,
    configureHttpServer: (server) => applyConnectionLimits(server, options.connections),
    async beforeListen() {
      await database.migrate(logger);
      await memory.start();
      await sequencer?.start();
      await socketServerReady(io);
      await mountPlugins();
      // Agents created at run time (here or by another process, before a restart): before the port opens.
      await agentManager.start(
        options.agentManagement?.syncIntervalMs ?? DEFAULTS.agentManagement.syncIntervalMs,
      );
      // After the plugins: an MCP tool whose name a plugin's action has is namespaced.
      await mcpClients.start();
      await tee.register(profiles.summaries().map(({ id, name }) => ({ agentId: id, name })));
      // The characters' knowledge, before the port opens: stored and embedded once (a restart finds it there).
      for (const { id } of profiles.summaries()) {
        const profile = profiles.find(id);
        if (profile) await knowledge.loadCharacter(id, profile.character);
      }
    },
    afterListen(url) {
      serverUrl = url;
      scheduler.start();
      webhooks.dispatcher.start();
      messaging.pausedReplies?.start();
      idempotencySweep.start();
      logger.info({ url, agents: profiles.summaries() }, 'server listening');
      warnIfExposedWithoutToken(logger, { host, authToken: options.authToken });
    },
    onDrainDeadline: () => messaging.abortReplies(),
    async afterClose() {
      messaging.abortReplies();
      namer.stop();
      agentManager.stop();
      await Promise.all(agents.list().map((agent) => agent.stopServices()));
      await mcpClients.close();
      await replyReceipts.settled();
      await tee.close();
      await scheduler.stop();
      await messaging.pausedReplies?.stop();
      await idempotencySweep.stop();
      await namer.idle();
      await webhooks.close();
      await sequencer?.close();
      await store.flushed();
      await database.close();
      unregisterSecrets();
    },
  });

  return {
    app,
    io,
    agents,
    logger,
    memory,
    get url() {
      return serverUrl;
    },
    start: async () => {
      const started = await lifecycle.start(port);
      port = started.port;
      return started;
    },
    stop: lifecycle.stop,
    callAction: (request) =>
      callAction(
        {
          agent: request.agentId ? agents.get(request.agentId) : agents.defaultAgent,
          limits: agentLoop,
          logger,
          serverSecrets,
          post: (agent, post) => messaging.postAgentMessage(agent, post),
        },
        request,
      ),
  };
}
