import { describe, expect, it } from 'vitest';
import {
  isSecretName,
  MAX_REDACTED_TEXT,
  REDACTED,
  redactText,
  redactValue,
  registerSecretValues,
} from './redact';

describe('isSecretName', () => {
  it('knows secret names in every case and style, and leaves ordinary ones', () => {
    const secret = [
      'SMTP_PASS',
      'smtpPass',
      'smtp-pass',
      'PASSPHRASE',
      'password',
      'DB_PWD',
      'x-api-key',
      'APIKey',
      'OPENAI_API_KEY',
      'Authorization',
      'sessionToken',
      'session_id',
      'private_key',
      'privateKey',
      'Cookie',
      'set-cookie',
      'x-hub-signature-256',
      'WALLET_SECRET_SALT',
      'clientCredentials',
      '--api-key',
      '-token',
      'jwt',
      'oauth',
      'API_KEYS',
    ];
    const ordinary = [
      'MAX_TOKENS',
      'author',
      'keyword',
      'tokenizer',
      'DATABASE_URL',
      'url',
      'args',
      'env',
      'headers',
      'name',
      'passthrough',
      'MODEL_TEMPERATURE',
      'keys',
      // Addresses, not secrets: a server's own URL (127.0.0.1) must stay readable in its logs.
      'WEBHOOK_PRIVATE_TARGETS',
      'privateTargets',
    ];
    for (const name of secret) expect(isSecretName(name), name).toBe(true);
    for (const name of ordinary) expect(isSecretName(name), name).toBe(false);
  });
});

describe('redactText', () => {
  it.each([
    [
      'connect postgres://app:hunter2pw@db:5432/x failed',
      'connect postgres://app:[redacted]@db:5432/x failed',
    ],
    [
      'GET https://h/v1?q=1&api_key=k-123&access_token=t-456&v=2',
      'GET https://h/v1?q=1&api_key=[redacted]&access_token=[redacted]&v=2',
    ],
    ['Authorization: Bearer abc.def-ghi', 'Authorization: Bearer [redacted]'],
    ['API_TOKEN=sk-zzz-123 then more', 'API_TOKEN=[redacted] then more'],
    ['password: hunter2', 'password: [redacted]'],
    [
      '{"token":"a b c","name":"ok","API_SECRET":12345}',
      '{"token":"[redacted]","name":"ok","API_SECRET":[redacted]}',
    ],
    [
      'run --api-key XYZ --port 80 --token=QQQ --verbose',
      'run --api-key [redacted] --port 80 --token=[redacted] --verbose',
    ],
    [
      '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- after',
      '[redacted] after',
    ],
  ])('redacts the shape in %j', (text, clean) => {
    expect(redactText(text)).toBe(clean);
  });

  it('leaves ordinary prose alone', () => {
    const prose =
      'the token expired at noon; basic usage: key points are listed at https://example.com/a?b=c';
    expect(redactText(prose)).toBe(prose);
  });

  it('removes the values given and those registered, until they are unregistered', () => {
    expect(redactText('a sk-given-1234 b', ['sk-given-1234'])).toBe(`a ${REDACTED} b`);
    const unregister = registerSecretValues(['reg-secret-987', 'short']);
    expect(redactText('x reg-secret-987 short')).toBe(`x ${REDACTED} short`);
    unregister();
    expect(redactText('x reg-secret-987')).toBe('x reg-secret-987');
  });

  it('is bounded: a hostile megabyte is read once, cut beyond the bound, and returns', () => {
    for (const unit of ['a= ', 'pw=b ', 'x://', '"a', '--k ', '?a=', 'Bearer ']) {
      const text = unit.repeat(Math.ceil((MAX_REDACTED_TEXT * 2) / unit.length));
      const clean = redactText(text);
      // Cut at the bound first; what redaction adds (`[redacted]` for a short value) is a bounded factor.
      expect(clean.length).toBeLessThan(4 * MAX_REDACTED_TEXT);
      expect(clean).toContain('[cut: ');
    }
  });
});

describe('redactValue', () => {
  it('replaces values under secret names, follows lists and flags, and keeps the shape', () => {
    const value = {
      settings: { SMTP_PASS: 'p', auth: false, session: null, nested: [{ clientSecret: 'x' }] },
      args: ['--api-key', 'X1', '--port', '80'],
      url: 'https://h/mcp?api_key=K1',
    };
    expect(redactValue(value)).toEqual({
      settings: {
        SMTP_PASS: REDACTED,
        auth: false,
        session: null,
        nested: [{ clientSecret: REDACTED }],
      },
      args: ['--api-key', REDACTED, '--port', '80'],
      url: 'https://h/mcp?api_key=[redacted]',
    });
  });

  it('replaces a value equal to a secret however short, and errors keep their message redacted', () => {
    const error = new Error('failed with Bearer tok-123456');
    expect(redactValue({ pin: '1234', note: '1234', err: error }, ['1234'])).toMatchObject({
      pin: REDACTED,
      note: REDACTED,
      err: { type: 'Error', message: 'failed with Bearer [redacted]' },
    });
  });

  it('is bounded: a value nested 100,000 deep, a cycle, and 100,000 nodes all return', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i += 1) deep = { next: deep };
    expect(JSON.stringify(redactValue(deep))).toContain(REDACTED);
    const cycle: Record<string, unknown> = { name: 'a' };
    cycle.self = cycle;
    expect(redactValue(cycle)).toEqual({ name: 'a', self: REDACTED });
    const wide = Array.from({ length: 100_000 }, (_, index) => ({ index }));
    const cleaned = redactValue(wide);
    expect(cleaned).toHaveLength(100_000);
    expect(cleaned.at(-1)).toBe(REDACTED);
  });
});
