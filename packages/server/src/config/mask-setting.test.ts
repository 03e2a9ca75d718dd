import { describe, expect, it } from 'vitest';
import { maskSetting } from './mask-setting';

describe('maskSetting', () => {
  it('hides a secret-named value whole, a URL password as ****, and secret query parameters', () => {
    expect(maskSetting('SERVER_AUTH_TOKEN', 'abc123456')).toBe('[hidden]');
    expect(maskSetting('SMTP_PASS', 'p4ss-word')).toBe('[hidden]');
    expect(maskSetting('DATABASE_URL', 'postgres://u:pw-123@db:5432/app')).toBe(
      'postgres://u:****@db:5432/app',
    );
    expect(maskSetting('DATABASE_URL', 'postgres://u:pw-123@db/app?sslpassword=x-9&ssl=1')).toBe(
      'postgres://u:****@db/app?sslpassword=[redacted]&ssl=1',
    );
    expect(maskSetting('OPENAI_BASE_URL', 'https://api.example/v1?api_key=k-77')).toBe(
      'https://api.example/v1?api_key=[redacted]',
    );
    expect(maskSetting('LOG_LEVEL', 'loud')).toBe('loud');
  });
});
