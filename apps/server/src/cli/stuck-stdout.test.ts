import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnParley } from '../test/parley-child';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-stuck-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

/**
 * `parley | sleep 1000`: standard output is a pipe whose reader never reads. Once the pipe is full, every log
 * line waits; the server must go on serving, and SIGTERM must still stop it (it used to hang on exit, flushing
 * its log lines into the full pipe for good).
 */
describe.each(['json', 'pretty'])('with stdout a pipe nobody reads (%s logs)', (format) => {
  it('serves, and exits after SIGTERM', async () => {
    const child = spawnParley(
      cwd,
      [],
      {
        PORT: '0',
        PLUGINS: 'none',
        LOG_FORMAT: format,
        LOG_LEVEL: 'debug',
        REQUEST_LOG_LEVEL: 'info',
        DATA_DIR: join(cwd, `data-${format}`),
      },
      'ignore',
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      // Read until the address shows, then never again: the pipe fills up.
      const url = await new Promise<string>((resolve, reject) => {
        let seen = '';
        const onData = (data: Buffer) => {
          seen += data.toString();
          const match = /http:\/\/127\.0\.0\.1:\d+/.exec(seen);
          if (!match) return;
          child.stdout.off('data', onData);
          child.stdout.pause();
          resolve(match[0]);
        };
        child.stdout.on('data', onData);
        void exited.then(() => reject(new Error('the server exited before listening')));
      });
      // Enough requests, each logged, to fill the pipe (64 KiB) and the reader's buffer many times over.
      for (let round = 0; round < 6; round += 1) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, () =>
            fetch(`${url}/api/server/health?${'padding'.repeat(40)}`).then(
              (response) => response.status,
            ),
          ),
        );
        expect(answers.every((status) => status === 200)).toBe(true);
      }
      child.kill('SIGTERM');
      // Exits by itself (the test's own timeout is the bound): 0 when the drain finished.
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
