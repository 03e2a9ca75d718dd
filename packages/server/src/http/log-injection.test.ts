import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createLogger, type LogFormat } from '../logger';

/** Everything a logger wrote, line by line. */
function capture(): { stream: Writable; lines: () => string[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, lines: () => text.split('\n').filter((line) => line !== '') };
}

/**
 * Sends one request as raw bytes (a client can put anything in the request line and in a header value that
 * Node's parser takes, which fetch would refuse to send), and resolves once the server has answered.
 */
function rawRequest(url: string, target: string, headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(url);
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (/\r\n\r\n/.test(answer)) socket.end();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    const head = Object.entries({ host: `${hostname}:${port}`, connection: 'close', ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(Buffer.from(`GET ${target} HTTP/1.1\r\n${head}\r\n`, 'latin1'));
  });
}

/** Paths an attacker requests to forge a log line or repaint an operator's terminal. */
const HOSTILE = [
  '/api/x%0aFORGED-LF [00:00:00.000] INFO: admin logged in',
  '/api/x%0d%0aFORGED-CRLF',
  '/api/x%0dFORGED-CR',
  '/api/x%1b[31mFORGED-ANSI%1b[0m',
  '/api/x%e2%80%a8FORGED-LS%e2%80%a9FORGED-PS',
  '/api/x%c2%85FORGED-NEL',
  '/api/x?q=%0aFORGED-QUERY%1b[2J',
].map((path) => path.replaceAll(' ', '%20'));

describe.each(['pretty', 'json'] as LogFormat[])('request logs in %s mode', (format) => {
  let test: TestServer;
  let logs: ReturnType<typeof capture>;

  beforeAll(async () => {
    logs = capture();
    test = await startTestServer({
      logger: createLogger('info', { format, destination: logs.stream }),
    });
    const answers = await Promise.all([
      // Header values may carry obs-text: bytes 0x80-0xff, read as Latin-1, so 0x85 is NEL and 0x9b is CSI.
      ...HOSTILE.map((target) =>
        rawRequest(test.url, target, {
          'user-agent': 'curl/8 \u0085FORGED-UA \u009b31m',
          'x-request-id': 'id\u0085FORGED-ID',
        }),
      ),
      // ESC in a header: Node's parser refuses the request itself (400), nothing reaches a log.
      rawRequest(test.url, '/api/server/health', { 'user-agent': 'curl\u001b[31m FORGED-ESC' }),
    ]);
    // Each was answered (a 404 for an unknown path, or a 400), never a 500 or a dropped connection.
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
    await new Promise((resolve) => setImmediate(resolve));
  });
  afterAll(() => test[Symbol.asyncDispose]());

  it('writes one record per line: no request forges a line of its own', () => {
    const lines = logs.lines();
    expect(lines.length).toBeGreaterThanOrEqual(HOSTILE.length);
    for (const line of lines) {
      if (format === 'json') {
        expect(() => JSON.parse(line) as unknown, line).not.toThrow();
      } else {
        // Every pretty line starts as pino-pretty starts a record: `[HH:MM:ss.l] LEVEL`.
        expect(line, line).toMatch(
          /^\[\d\d:\d\d:\d\d\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL)/,
        );
      }
      expect(line).not.toMatch(/^\s*(FORGED|\[00:00:00\.000\])/);
      // No raw C0 control character (ESC, BEL, CR) in either mode; pretty lines carry no C1 (NEL, CSI), DEL
      // or Unicode line separator either (JSON keeps those as they are, inside a string: still one record).
      // eslint-disable-next-line no-control-regex -- finding control characters is the point
      expect(line).not.toMatch(/[\u0000-\u001f]/);
      if (format === 'pretty') expect(line).not.toMatch(/[\u007f-\u009f\u2028\u2029]/);
    }
  });

  it('keeps what was requested readable in the same line', () => {
    const text = logs.lines().join('\n');
    for (const word of ['FORGED-LF', 'FORGED-CRLF', 'FORGED-CR', 'FORGED-ANSI', 'FORGED-NEL']) {
      const line = logs.lines().find((each) => each.includes(word));
      expect(line, word).toBeDefined();
      expect(line).toMatch(/GET \/api\/x/);
    }
    if (format === 'pretty') expect(text).toContain('\\n');
    else {
      // JSON escapes them: the record, parsed, holds the characters that were requested.
      const paths = logs
        .lines()
        .map((line) => (JSON.parse(line) as { path?: string }).path)
        .filter((path) => path !== undefined);
      expect(paths).toContain('/api/x\nFORGED-LF [00:00:00.000] INFO: admin logged in');
      expect(paths).toContain('/api/x\u001b[31mFORGED-ANSI\u001b[0m');
    }
  });
});
