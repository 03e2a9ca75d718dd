import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { EXPOSED_WITHOUT_TOKEN_WARNING, warnIfExposedWithoutToken } from './exposure-warning';

function capture() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

describe('warnIfExposedWithoutToken', () => {
  it('warns when bound beyond loopback without a token', () => {
    const { lines, logger } = capture();
    expect(warnIfExposedWithoutToken(logger, { host: '0.0.0.0' })).toBe(true);
    expect(lines).toMatchObject([{ level: 40, msg: EXPOSED_WITHOUT_TOKEN_WARNING }]);
  });

  it('stays quiet on loopback or with a token', () => {
    const { lines, logger } = capture();
    expect(warnIfExposedWithoutToken(logger, { host: '127.0.0.1' })).toBe(false);
    expect(warnIfExposedWithoutToken(logger, { host: 'localhost' })).toBe(false);
    expect(warnIfExposedWithoutToken(logger, { host: '::', authToken: 'secret' })).toBe(false);
    expect(lines).toEqual([]);
  });
});
