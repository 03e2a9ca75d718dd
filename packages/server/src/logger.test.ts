import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

describe('createLogger', () => {
  it('adds no process listener per logger: a process that builds many (a server per test) does not leak', () => {
    createLogger('silent', { format: 'json' });
    createLogger('silent', { format: 'pretty' });
    const before = process.listenerCount('exit');
    for (let i = 0; i < 20; i += 1) {
      createLogger('silent', { format: i % 2 === 0 ? 'json' : 'pretty' });
    }
    expect(process.listenerCount('exit')).toBe(before);
  });
});
