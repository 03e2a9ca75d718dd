import type { Logger } from 'pino';

/** Per-request variables of the hono app. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
  };
}
