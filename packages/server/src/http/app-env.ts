import type { Logger } from 'pino';
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

/**
 * The budget a request was counted against, for a route whose one request makes several calls (a JSON-RPC
 * batch to `/mcp`): each further call takes a token of the same client's bucket, so a budget counts calls, not
 * HTTP requests.
 */
export interface RateBudget {
  /** Takes one more token: 0 when taken, else the whole seconds until one comes back (at least 1). */
  take(): number;
}
