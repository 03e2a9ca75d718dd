import type { StoredMessage } from '@parley/core';
import { messageTokens } from './token-estimate';

/**
 * The newest messages of `recent` (oldest first) that fit in `budget` tokens together, oldest first. The last
 * message (the one being answered) is always kept, even alone over the budget: a reply answers something.
 */
export function fitWindow(recent: readonly StoredMessage[], budget: number): StoredMessage[] {
  const kept: StoredMessage[] = [];
  let used = 0;
  for (let index = recent.length - 1; index >= 0; index -= 1) {
    const message = recent[index]!;
    const cost = messageTokens(message);
    if (kept.length > 0 && used + cost > budget) break;
    kept.push(message);
    used += cost;
  }
  return kept.reverse();
}
