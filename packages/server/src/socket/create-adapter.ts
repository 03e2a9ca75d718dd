import type { Logger } from 'pino';
import { createPostgresAdapter } from './create-adapter-postgres';
import { createRedisAdapter } from './create-adapter-redis';
import type { ClusterAdapter } from './create-adapter-shared';

export type { AdapterFactory, ClusterAdapter } from './create-adapter-shared';

/**
 * Where the processes of one deployment meet so that a room spans all of them: PostgreSQL (LISTEN/NOTIFY,
 * nothing to run beyond the database) or Redis (streams).
 */
export type ClusterOptions =
  { kind: 'postgres'; connectionString: string } | { kind: 'redis'; url: string };

/**
 * Creates socket.io's own adapter for `options` (`@socket.io/postgres-adapter` or
 * `@socket.io/redis-streams-adapter`), so that `io.to(room).emit()` on any process reaches the room's members
 * on every process, once.
 *
 * @example
 * const cluster = createClusterAdapter({ kind: 'postgres', connectionString: url }, logger);
 * io.adapter(cluster.adapter);
 * await cluster.ready;
 */
export function createClusterAdapter(options: ClusterOptions, logger: Logger): ClusterAdapter {
  const log = logger.child({ cluster: options.kind });
  return options.kind === 'postgres'
    ? createPostgresAdapter(options.connectionString, log)
    : createRedisAdapter(options.url, log);
}
