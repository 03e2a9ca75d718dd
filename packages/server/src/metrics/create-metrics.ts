import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A finished HTTP request, as the request log sees it. */
export interface HttpRequestSample {
  method: string;
  /** The route pattern, never the raw path, so that the number of series stays bounded. */
  route: string;
  status: number;
  ms: number;
}

/** A database connection pool's state. */
export interface PoolState {
  total: number;
  idle: number;
  waiting: number;
}

/** Values read at scrape time rather than counted as they change. */
export interface MetricsSources {
  /** Connected sockets. */
  sockets?: () => number;
  /** Channel rooms with at least one member. */
  rooms?: () => number;
  /** Work waiting in each named queue (e.g. `replies`, `writes`). */
  queues?: Record<string, () => number>;
  /** The database pool; undefined when the database has none (embedded PGlite). */
  databasePool?: () => PoolState | undefined;
}

/** One model call, as {@link ParleyMetrics.observeModelCall} records it. */
export interface ModelCallSample {
  /** The agent's name. */
  agent: string;
  /** The model's name (`gen_ai.request.model`). */
  model: string;
  seconds: number;
  /** Tokens, when the model service reported them. */
  inputTokens?: number;
  outputTokens?: number;
}

/** Token counts of one model call: from one token to a long context. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576];

/** How a reply ended. */
export type ReplyOutcome = 'stored' | 'empty' | 'error' | 'paused';

/** The server's Prometheus metrics: a small typed surface over one prom-client registry. */
export interface ParleyMetrics {
  /** Records one HTTP request (count and latency). */
  observeHttpRequest(sample: HttpRequestSample): void;
  /** A reply began (the model was asked). */
  replyStarted(): void;
  /** A reply ended; pairs with {@link ParleyMetrics.replyStarted}. */
  replyFinished(outcome: ReplyOutcome): void;
  /** How long the model took to answer one reply, in milliseconds. */
  observeModelLatency(ms: number): void;
  /** The model failed, with the Parley error code it was mapped to (`TIMEOUT`, `UPSTREAM_ERROR`, …). */
  modelError(code: string): void;
  /** One model call (one step of a reply's loop) ended: its duration and the tokens the model reported. */
  observeModelCall(sample: ModelCallSample): void;
  /** A tool call ended; `tool` is already bounded (see `toolLabel` in observe-reply.ts). */
  toolCallFinished(tool: string, outcome: 'ok' | 'error'): void;
  /** Outbound webhook attempts (success or failure) and deliveries that ended (delivered or dead). */
  readonly webhooks: {
    attempt(result: 'success' | 'failure'): void;
    delivery(outcome: 'delivered' | 'dead'): void;
  };
  /** Sets the functions gauges read at scrape time; later calls add to or replace earlier ones. */
  watch(sources: MetricsSources): void;
  /** The exposition text and its content type, for `GET /metrics`. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** Also export Node's process metrics (CPU, memory, event-loop lag, GC); default true. */
  processMetrics?: boolean;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Creates the metrics of one server on a registry of its own (two servers in one process never mix their
 * figures). Every name starts with `parley_`.
 *
 * @example
 * const metrics = createMetrics();
 * metrics.watch({ sockets: () => io.engine.clientsCount });
 * app.route('/', metricsRoutes(metrics, { authToken }));
 */
export function createMetrics(options: MetricsOptions = {}): ParleyMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true)
    collectDefaultMetrics({ register: registry, prefix: 'parley_' });
  const sources: MetricsSources = {};
  const queues = new Map<string, () => number>();

  // Every metric in this registry: its name, help text, buckets (histograms) and label names.
  const counter = <T extends string>(name: string, help: string, labelNames: readonly T[] = []) =>
    new Counter<T>({ name, help, labelNames, registers: [registry] });
  const histogram = <T extends string>(
    name: string,
    help: string,
    buckets: number[],
    labelNames: readonly T[] = [],
  ) => new Histogram<T>({ name, help, labelNames, buckets, registers: [registry] });
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers: [registry] });

  const requests = counter(
    'parley_http_requests_total',
    'HTTP requests answered, by method, route pattern and status',
    ['method', 'route', 'status'],
  );
  const requestSeconds = histogram(
    'parley_http_request_duration_seconds',
    'Time to the response headers, by method and route pattern',
    LATENCY_BUCKETS,
    ['method', 'route'],
  );
  const replies = counter(
    'parley_replies_total',
    'Agent replies that ended, by outcome (stored, empty, error)',
    ['outcome'],
  );
  const repliesInFlight = gauge('parley_replies_in_flight', 'Agent replies being produced now');
  const modelSeconds = histogram(
    'parley_model_duration_seconds',
    'Time the model took to answer one reply',
    LATENCY_BUCKETS,
  );
  const modelErrors = counter('parley_model_errors_total', 'Model failures, by error code', [
    'code',
  ]);
  // The OpenTelemetry GenAI client metrics (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`)
  // under their Prometheus names, per agent and model.
  const tokenUsage = histogram(
    'gen_ai_client_token_usage',
    'Tokens one model call used, by token type (input, output), agent and model',
    TOKEN_BUCKETS,
    ['token_type', 'agent', 'model'],
  );
  const operationSeconds = histogram(
    'gen_ai_client_operation_duration_seconds',
    'Time one model call took, by agent and model',
    LATENCY_BUCKETS,
    ['agent', 'model'],
  );
  const toolCalls = counter(
    'parley_tool_calls_total',
    'Tool calls that ended, by tool (at most 100 names, then other) and outcome (ok, error)',
    ['tool', 'outcome'],
  );
  const webhookAttempts = counter(
    'parley_webhook_attempts_total',
    'Outbound webhook attempts, by result (success, failure)',
    ['result'],
  );
  const webhookDeliveries = counter(
    'parley_webhook_deliveries_total',
    'Outbound webhook deliveries that ended, by outcome (delivered, dead)',
    ['outcome'],
  );
  new Gauge({
    name: 'parley_sockets',
    help: 'Connected sockets',
    registers: [registry],
    collect() {
      this.set(sources.sockets?.() ?? 0);
    },
  });
  new Gauge({
    name: 'parley_rooms',
    help: 'Channel rooms with at least one member',
    registers: [registry],
    collect() {
      this.set(sources.rooms?.() ?? 0);
    },
  });
  new Gauge({
    name: 'parley_queue_depth',
    help: 'Work waiting, by queue',
    labelNames: ['queue'] as const,
    registers: [registry],
    collect() {
      for (const [queue, depth] of queues) this.set({ queue }, depth());
    },
  });
  new Gauge({
    name: 'parley_database_pool_connections',
    help: 'Database pool connections, by state (total, idle, waiting clients)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = sources.databasePool?.();
      if (!pool) return;
      this.set({ state: 'total' }, pool.total);
      this.set({ state: 'idle' }, pool.idle);
      this.set({ state: 'waiting' }, pool.waiting);
    },
  });

  return {
    observeHttpRequest({ method, route, status, ms }) {
      requests.inc({ method, route, status: String(status) });
      requestSeconds.observe({ method, route }, ms / 1000);
    },
    replyStarted: () => repliesInFlight.inc(),
    replyFinished(outcome) {
      repliesInFlight.dec();
      replies.inc({ outcome });
    },
    observeModelLatency: (ms) => modelSeconds.observe(ms / 1000),
    modelError: (code) => modelErrors.inc({ code }),
    observeModelCall({ agent, model, seconds, inputTokens, outputTokens }) {
      operationSeconds.observe({ agent, model }, seconds);
      if (inputTokens !== undefined)
        tokenUsage.observe({ token_type: 'input', agent, model }, inputTokens);
      if (outputTokens !== undefined) {
        tokenUsage.observe({ token_type: 'output', agent, model }, outputTokens);
      }
    },
    toolCallFinished: (tool, outcome) => toolCalls.inc({ tool, outcome }),
    webhooks: {
      attempt: (result) => webhookAttempts.inc({ result }),
      delivery: (outcome) => webhookDeliveries.inc({ outcome }),
    },
    watch(next) {
      Object.assign(sources, next);
      for (const [queue, depth] of Object.entries(next.queues ?? {})) queues.set(queue, depth);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
