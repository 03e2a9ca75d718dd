import { randomUUID } from 'node:crypto';
import { ParleyError } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../test/scripted-model';
import { startTestServer } from '../../test/test-server';
import { memoryLog, startTracedTest } from '../../test/tracing-fixture';

describe(
  'spans of a reply that fails with a provider error repeating a credential',
  { timeout: 60_000 },
  () => {
    it('record the exception redacted: no span, attribute or event carries the credential', async () => {
      const credential = 'sk-traced-credential-3a4b5c6d';
      const traced = await startTracedTest();
      const log = memoryLog();
      const model = new ScriptedModel();
      model.behaviour = {
        fail: new ParleyError('MODEL_ERROR', `upstream 401: Authorization: Bearer ${credential}`),
      };
      const test = await startTestServer({
        model,
        logger: log.logger,
        tracerProvider: traced.tracing.tracerProvider,
      });
      let spans: Awaited<ReturnType<typeof traced.finish>>;
      try {
        const response = await fetch(
          `${test.url}/api/messaging/channels/${randomUUID()}/messages`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ entityId: 'user-1', text: 'hi', mode: 'sync' }),
          },
        );
        expect(response.status).toBe(502);
        expect(await response.text()).not.toContain(credential);
      } finally {
        await test[Symbol.asyncDispose]();
        spans = await traced.finish();
      }
      const exceptions = spans
        .flatMap((span) => span.events)
        .filter((event) => event.name === 'exception');
      expect(exceptions.length).toBeGreaterThan(0);
      expect(exceptions.map((event) => event.attributes['exception.message'])).toContain(
        'upstream 401: Authorization: Bearer [redacted]',
      );
      expect(JSON.stringify(spans)).not.toContain(credential);
      expect(JSON.stringify(log.lines)).not.toContain(credential);
    });
  },
);
