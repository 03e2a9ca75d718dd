import { describe, expect, it } from 'vitest';
import { ChunkCoalescer } from './chunk-coalescer';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('ChunkCoalescer', () => {
  it('joins pieces of one turn and keeps pieces of separate turns apart', async () => {
    const delivered: string[] = [];
    const chunks = new ChunkCoalescer((chunk) => delivered.push(chunk));
    chunks.push('Hel');
    chunks.push('lo');
    await nextTurn();
    chunks.push(', ');
    await nextTurn();
    chunks.push('world');
    chunks.push('');
    chunks.flush();
    expect(delivered).toEqual(['Hello', ', ', 'world']);
    await nextTurn();
    expect(delivered).toHaveLength(3);
  });
});
