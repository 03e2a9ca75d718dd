import type { Logger } from 'pino';
import type { RateBudget } from '../guards/rate-limit';
import type { Identity } from '../identity/identity';

/** Per-request variables of the hono app. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    /** The rate budget the request was counted against, when one was (see `guards/rate-limit.ts`). */
    rateBudget?: RateBudget;
    /**
     * Who asks (identity/identity.ts), set by the identity middleware when auth is configured; absent: no auth
     * configured, the operator as before.
     */
    identity?: Identity;
  };
}
