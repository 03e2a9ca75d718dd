import { describe, expect, it } from 'vitest';
import { checkApiKey } from './check-api-key';

describe('checkApiKey', () => {
  it('accepts the expected key', () => {
    expect(checkApiKey({ 'x-api-key': 'secret-key' }, 'secret-key')).toBe(true);
    expect(checkApiKey(new Headers({ 'X-Api-Key': 'secret-key' }), 'secret-key')).toBe(true);
  });

  it('refuses a wrong, longer, shorter or missing key', () => {
    for (const received of ['secret-kez', 'secret-key ', 'secret', '', undefined]) {
      expect(checkApiKey({ 'x-api-key': received }, 'secret-key')).toBe(false);
    }
    expect(checkApiKey({}, 'secret-key')).toBe(false);
    expect(checkApiKey(new Headers(), 'secret-key')).toBe(false);
  });

  it('refuses a repeated header', () => {
    expect(checkApiKey({ 'x-api-key': ['secret-key', 'secret-key'] }, 'secret-key')).toBe(false);
  });

  it('stays closed when no key is configured', () => {
    for (const expected of ['', undefined, null]) {
      expect(checkApiKey({ 'x-api-key': '' }, expected)).toBe(false);
      expect(checkApiKey({}, expected)).toBe(false);
    }
  });
});
