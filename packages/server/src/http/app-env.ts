import type { Logger } from 'pino';
import type { RateBudget } from '../guards/rate-limit';

/** Per-request variables of the hono app. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    /** The rate budget the request was counted against, when one was (see `guards/rate-limit.ts`). */
    rateBudget?: RateBudget;
  };
}
