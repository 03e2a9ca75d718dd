import type { Logger } from 'pino';
import type { Server } from 'socket.io';
import type { ParleySocketServer } from '../socket/create-socket-server';
import type { AgentManager } from './agent-manager';

/** The server-side event a process tells the others of the cluster that agents changed on. */
export const AGENTS_CHANGED_EVENT = 'parley:agents-changed';

/**
 * Agents changed by one process reach the others at once: a notice over socket.io's server-to-server channel
 * (the cluster adapter's `serverSideEmit`), on which each process reads the stored agents again. The notice
 * carries nothing but the fact; the database holds the truth, and a missed notice is caught by the poll.
 * Returns the function that sends the notice.
 */
export function serveAgentChanges(
  ioServer: ParleySocketServer,
  manager: () => AgentManager,
  logger: Logger,
): () => void {
  const io = ioServer as unknown as Server;
  io.on(AGENTS_CHANGED_EVENT, () => {
    manager()
      .refresh()
      .catch((error: unknown) => logger.warn({ err: error }, 'could not read the stored agents'));
  });
  return () => {
    try {
      io.serverSideEmit(AGENTS_CHANGED_EVENT);
    } catch (error) {
      logger.warn({ err: error }, 'could not tell the other processes that agents changed');
    }
  };
}
