import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { startTestServer } from '../../test/test-server';
import { createMetrics } from './create-metrics';

it('counts a server’s requests, replies and reply queue when createServer is given metrics', async () => {
  const metrics = createMetrics({ processMetrics: false });
  await using test = await startTestServer({ metrics });
  const response = await fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'I feel happy', entityId: 'u', mode: 'sync' }),
  });
  expect(response.status).toBe(200);
  const { body } = await metrics.render();
  expect(body).toMatch(/parley_http_requests_total\{[^}]*status="200"[^}]*\} 1/);
  expect(body).toMatch(/parley_replies_total\{[^}]*outcome="stored"[^}]*\} 1/);
  expect(body).toMatch(/parley_queue_depth\{[^}]*queue="replies"[^}]*\} 0/);
});
