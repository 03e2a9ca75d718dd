import { strict as assert } from 'node:assert';
import type { PluginTestSuite } from '@parley/plugin-sdk';
import { expectStatus, fetchRoute } from '@parley/plugin-sdk/testing';

/** A channel of the test run's own, so that a test never posts into a real notification channel. */
const TEST_CHANNEL = '5e1f3c1a-7d2b-4c6e-8f90-a1b2c3d4e5f6';

/** The upload plugin's own tests, run against the live server. */
export const uploadPluginTests: PluginTestSuite[] = [
  {
    name: 'upload route',
    tests: [
      {
        name: 'POST /upload posts the file as an attachment',
        async fn(runtime) {
          const form = new FormData();
          form.set('file', new Blob(['hello, parley'], { type: 'text/plain' }), 'hello.txt');
          form.set('description', 'plugin self-test');
          form.set('channelId', TEST_CHANNEL);
          const body = (await expectStatus(
            await fetchRoute(runtime, '/upload', { method: 'POST', body: form }),
            200,
          )) as { success: boolean; messageId: string; attachment: unknown };
          assert.equal(body.success, true);
          assert.equal(typeof body.messageId, 'string');
          assert.deepEqual(body.attachment, {
            filename: 'hello.txt',
            size: 13,
            mimeType: 'text/plain',
          });
        },
      },
      {
        name: 'POST /upload without a file is a 400',
        async fn(runtime) {
          const form = new FormData();
          form.set('description', 'no file');
          form.set('channelId', TEST_CHANNEL);
          await expectStatus(
            await fetchRoute(runtime, '/upload', { method: 'POST', body: form }),
            400,
          );
        },
      },
    ],
  },
];
