import { describe, expect, it } from 'vitest';
import { uuidV5 } from './uuid-v5';

describe('uuidV5', () => {
  it('matches RFC 9562 (the DNS namespace example) and is stable', () => {
    const dns = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
    expect(uuidV5('www.example.com', dns)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(uuidV5('python.org', dns)).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });
});
