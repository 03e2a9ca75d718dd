import { describe, expect, it } from 'vitest';
import { recordResponse } from './record-response';

describe('recordResponse', () => {
  it('records status, headers and body, chaining like the real response', () => {
    const { response, written } = recordResponse();
    response.status(201).setHeader('X-Id', '7').json({ ok: true });
    expect(written).toEqual({ status: 201, headers: { 'x-id': '7' }, body: { ok: true } });
    response.send('text');
    expect(written.body).toBe('text');
  });
});
