import type { Logger } from 'pino';
import { createLogger } from '../logger';

/** A trace-level logger whose JSON lines are kept in memory, so tests can read exactly what was logged. */
export function createCapturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}
