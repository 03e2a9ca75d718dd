import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../http/create-app';
import { createMetrics } from './create-metrics';
import { metricsRoutes } from './metrics-routes';

const logger = pino({ level: 'silent' });

function serve(authToken?: string) {
  const metrics = createMetrics({ processMetrics: false });
  const app = createHttpApp({
    logger,
    bodyLimit: 1024,
    authToken,
    onRequest: (entry) => metrics.observeHttpRequest(entry),
  });
  app.route('/', metricsRoutes(metrics, { authToken }));
  app.get('/api/agents/:agentId', (c) => c.json({ ok: true }));
  return { app, metrics };
}

describe('GET /metrics', () => {
  it('serves the Prometheus text format with HTTP, reply, model and gauge series', async () => {
    const { app, metrics } = serve();
    await app.request('/api/agents/1');
    await app.request('/api/agents/2');
    metrics.replyStarted();
    metrics.replyStarted();
    metrics.replyFinished('stored');
    metrics.observeModelLatency(120);
    metrics.modelError('TIMEOUT');
    metrics.toolCallFinished('CALCULATE', 'ok');
    metrics.toolCallFinished('CALCULATE', 'ok');
    metrics.toolCallFinished('other', 'error');
    metrics.watch({
      sockets: () => 3,
      rooms: () => 2,
      queues: { replies: () => 5 },
      databasePool: () => ({ total: 10, idle: 7, waiting: 1 }),
    });

    const response = await app.request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain(
      'parley_http_requests_total{method="GET",route="/api/agents/:agentId",status="200"} 2',
    );
    expect(text).toMatch(/parley_http_request_duration_seconds_count\{[^}]*\} 2/);
    expect(text).toContain('parley_replies_in_flight 1');
    expect(text).toContain('parley_replies_total{outcome="stored"} 1');
    expect(text).toContain('parley_model_duration_seconds_count 1');
    expect(text).toContain('parley_model_errors_total{code="TIMEOUT"} 1');
    expect(text).toContain('parley_tool_calls_total{tool="CALCULATE",outcome="ok"} 2');
    expect(text).toContain('parley_tool_calls_total{tool="other",outcome="error"} 1');
    expect(text).toContain('parley_sockets 3');
    expect(text).toContain('parley_rooms 2');
    expect(text).toContain('parley_queue_depth{queue="replies"} 5');
    expect(text).toContain('parley_database_pool_connections{state="waiting"} 1');
  });

  it('requires the server token when one is set', async () => {
    const { app } = serve('s3cret');
    const anonymous = await app.request('/metrics');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain('parley_');
    expect((await app.request('/metrics', { headers: { 'x-api-key': 'nope' } })).status).toBe(401);
    const scraped = await app.request('/metrics', { headers: { 'x-api-key': 's3cret' } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('parley_http_requests_total');
  });

  it('takes the token as Authorization: Bearer too, as Prometheus sends it', async () => {
    const { app } = serve('s3cret');
    const bearer = (value: string) =>
      app.request('/metrics', { headers: { authorization: value } });
    expect((await bearer('Bearer s3cret')).status).toBe(200);
    expect((await bearer('bearer s3cret')).status).toBe(200);
    expect((await bearer('Bearer nope')).status).toBe(401);
    expect((await bearer('Basic czNjcmV0')).status).toBe(401);
    expect((await bearer('s3cret')).status).toBe(401);
  });

  it('keeps two servers’ figures apart and exports process metrics by default', async () => {
    const first = createMetrics();
    const second = createMetrics();
    first.modelError('TIMEOUT');
    expect((await first.render()).body).toContain('parley_process_cpu_seconds_total');
    expect((await second.render()).body).not.toContain('parley_model_errors_total{code');
  });
});
