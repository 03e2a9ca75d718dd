import { setTimeout as sleep } from 'node:timers/promises';
import type { ModelProvider, ModelRequest } from '@parley/server';

/**
 * A model that answers a word every 100 ms for half a minute, so that a reply is still streaming when a test
 * stops it; it records every request whose signal aborted it.
 */
export function slowModel(): ModelProvider & { aborted: ModelRequest[] } {
  const aborted: ModelRequest[] = [];
  return {
    name: 'slow',
    callsTools: false,
    aborted,
    async *stream(request) {
      try {
        for (let word = 0; word < 300; word += 1) {
          await sleep(100, undefined, { signal: request.signal });
          yield { type: 'text-delta', delta: `word${word} ` };
        }
      } catch (error) {
        if (request.signal?.aborted) aborted.push(request);
        throw error;
      }
    },
  };
}
