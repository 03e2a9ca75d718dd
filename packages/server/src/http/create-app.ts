import { ParleyError, RESERVED_PATH_PREFIXES } from '@parley/core';
import type { Tracer } from '@opentelemetry/api';
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import type { AppEnv } from './app-env';
import { failure } from './envelope';
import { handleError } from './error-handler';
import { apiKeyAuth } from '../guards/api-key';
import { identityGuards, isIdentityGuardedPath } from '../identity/identity-routes';
import type { IdentityResolver } from '../identity/resolve-identity';
import type { TrustProxy } from '../guards/client-address';
import { frameGuard } from '../guards/frame-guard';
import { hostAllowList } from '../guards/host-allow-list';
import { requireJsonContentType } from '../guards/json-content-type';
import { originGuard } from '../guards/origin-guard';
import { personRateLimit, rateLimit, type RateLimitOptions } from '../guards/rate-limit';
import { DOCS_PATH } from '../api-docs/docs-page';
import { requestLog, type RequestLogOptions } from './request-log';
import { isUploadRequest } from './upload-path';
import { HEALTH_PATH, isOpenPath } from './routes/server-routes';
import { httpTracing } from '../tracing/http-tracing';
import { handleOpenAIError, isOpenAIPath } from '../openai/openai-errors';
import { isA2APath, isAgentCardPath } from '../a2a/a2a-routes';
import type { AuditLog } from '../audit/audit-log';
import { auditActions } from '../audit/audit-middleware';

/** The path of the MCP endpoint: the agents served as tools over Streamable HTTP. */
export const MCP_PATH = '/mcp';

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions extends RequestLogOptions {
  /** When set, the built-in endpoints require `x-api-key` equal to it (`/mcp` also `Authorization: Bearer`). */
  authToken?: string;
  /** Maximum JSON body size in bytes. */
  bodyLimit: number;
  /**
   * The address the server binds, which decides the default `allowedHosts`. Unknown: decided per connection
   * (one that arrived over loopback must name a loopback Host).
   */
  bindHost?: string;
  /**
   * Host names requests may carry (no port; `*` any; `.example.com` a domain and its subdomains). Default:
   * `localhost`, `127.0.0.1`, `::1` when `bindHost` is loopback, any otherwise.
   */
  allowedHosts?: readonly string[];
  /**
   * Browser origins, besides the server's own and loopback ones, that may call the REST interface
   * (`https://app.example.com`; `*` any). Default: none.
   */
  allowedOrigins?: readonly string[];
  /**
   * Per-client request rates on `/api/messaging`, on the other built-in endpoints (health aside) and on plugin
   * routes, each with its own budget (default: 60 at once, 10 a second; loopback peers not limited). `false`
   * turns them off.
   */
  rateLimit?: RateLimitOptions | false;
  /** Which proxies' `X-Forwarded-For` names the client (default: `rateLimit.trustProxy`, else none). */
  trustProxy?: TrustProxy;
  /** Where each request's SERVER span goes (continuing an incoming `traceparent`); absent: no spans. */
  tracer?: Tracer;
  /** Who asks (identity/): when it accepts people, it replaces the token check and sets `identity`. */
  identity?: IdentityResolver;
  /** Where admin actions are recorded (audit/): each request runs in its caller's audit scope. */
  audit?: AuditLog;
}

export { apiKeyAuth } from '../guards/api-key';

/**
 * Refuses bodies over `limit` bytes with 413. A declared Content-Length is checked from the header alone:
 * hono's streaming limiter reads `request.body`, which makes the node adapter build a full web Request and
 * skip its fast JSON path, so it only runs for bodies of unknown length.
 */
export function limitBody(limit: number): MiddlewareHandler<AppEnv> {
  const tooLarge = () => {
    throw new ParleyError('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limit} bytes`);
  };
  const streaming = bodyLimit({ maxSize: limit, onError: tooLarge });
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) {
      return streaming(c, next);
    }
    if (Number(declared) > limit) tooLarge();
    await next();
  };
}

/** Whether a path is the MCP endpoint's (`/mcp`). */
export function isMcpPath(path: string): boolean {
  return path === MCP_PATH || path.startsWith(`${MCP_PATH}/`);
}

/** Whether a path belongs to a built-in endpoint (as opposed to a plugin route); `/v1` is the OpenAI face. */
export function isBuiltInPath(path: string): boolean {
  return (
    isA2APath(path) ||
    RESERVED_PATH_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))
  );
}

/** Runs `middleware` on built-in endpoints only; plugin routes bring their own auth and limits. */
function onBuiltInPaths(middleware: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return (c, next) => (isBuiltInPath(c.req.path) ? middleware(c, next) : next());
}

/**
 * The hono app with everything every route shares: request ids, a per-request logger, the guards (Host rule,
 * origin guard, no framing of the built-in endpoints, per-client rate limits), the body limit, API-key auth and
 * JSON content types on the built-in endpoints, the `/api` envelope for unknown paths, and the one error
 * handler.
 */
export function createHttpApp(options: HttpAppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  // First: the request's log line and everything the request starts belong to its span.
  if (options.tracer) app.use(httpTracing(options.tracer));
  app.use(requestId());
  app.use(requestLog(options));
  // Then the audit scope: whatever the request decides knows who asked, and its admin action is recorded.
  if (options.audit) app.use(auditActions(options.audit));

  app.use(hostAllowList({ allowedHosts: options.allowedHosts, bindHost: options.bindHost }));
  app.use(originGuard(options.allowedOrigins ?? []));
  const frames = frameGuard();
  app.use((c, next) =>
    isBuiltInPath(c.req.path) || c.req.path === DOCS_PATH || c.req.path.startsWith(`${DOCS_PATH}/`)
      ? frames(c, next)
      : next(),
  );
  const limitOptions: RateLimitOptions | undefined =
    options.rateLimit === false
      ? undefined
      : {
          ...options.rateLimit,
          trustProxy: options.trustProxy ?? options.rateLimit?.trustProxy,
        };
  if (limitOptions) {
    const context = { authToken: options.authToken };
    const byAddress = {
      messaging: rateLimit(limitOptions, context),
      builtIn: rateLimit(limitOptions, context),
      plugins: rateLimit(limitOptions, context),
    };
    app.use((c, next) => {
      const budget = budgetOf(c.req.path);
      return budget ? byAddress[budget](c, next) : next();
    });
  }
  const limited = limitBody(options.bodyLimit);
  // An attachment upload reads its multipart body itself, within ATTACHMENT_MAX_BYTES (attachment-routes.ts).
  // The identity paths (`/api/auth…`, the sign-in's token exchange among them) are bounded too.
  app.use((c, next) =>
    (isBuiltInPath(c.req.path) || isIdentityGuardedPath(c.req.path)) &&
    !isUploadRequest(c.req.method, c.req.path)
      ? limited(c, next)
      : next(),
  );
  if (options.identity?.configured) {
    // People are signed in: every built-in request carries an identity (the operator token is admin).
    const guards = identityGuards(options.identity, isAgentCardPath);
    app.use((c, next) =>
      isBuiltInPath(c.req.path) || isIdentityGuardedPath(c.req.path) ? guards(c, next) : next(),
    );
    if (limitOptions) {
      // And each person has budgets of their own besides their address's, the same sizes.
      const byPerson = {
        messaging: personRateLimit(limitOptions),
        builtIn: personRateLimit(limitOptions),
        plugins: personRateLimit(limitOptions),
      };
      app.use((c, next) => {
        const budget = budgetOf(c.req.path);
        return budget ? byPerson[budget](c, next) : next();
      });
    }
  }
  const auth =
    options.authToken && !options.identity?.configured ? apiKeyAuth(options.authToken) : undefined;
  // MCP and OpenAI clients send tokens as `Authorization: Bearer`; `/mcp` and `/v1` take the token that way too.
  const mcpAuth = options.authToken ? apiKeyAuth(options.authToken, { bearer: true }) : undefined;
  if (auth && mcpAuth) {
    app.use(
      onBuiltInPaths((c, next) => {
        // Agent cards are open for discovery, as A2A asks: they name the schemes the calls need.
        if (isOpenPath(c.req.path) || isAgentCardPath(c.req.path)) return next();
        const path = c.req.path;
        return isMcpPath(path) || isOpenAIPath(path) || isA2APath(path)
          ? mcpAuth(c, next)
          : auth(c, next);
      }),
    );
  }
  const jsonOnly = requireJsonContentType();
  app.use(
    onBuiltInPaths((c, next) =>
      isUploadRequest(c.req.method, c.req.path) ? next() : jsonOnly(c, next),
    ),
  );

  app.notFound((c) => {
    const message = `No route for ${c.req.method} ${c.req.path}`;
    if (isOpenAIPath(c.req.path))
      return handleOpenAIError(new ParleyError('NOT_FOUND', message), c);
    return c.json(failure('NOT_FOUND', message), 404);
  });
  // `/v1` answers every refusal in OpenAI's error shape, which its clients read.
  app.onError((error, c) =>
    isOpenAIPath(c.req.path) ? handleOpenAIError(error, c) : handleError(error, c),
  );
  return app;
}

/**
 * Which rate budget a request spends: conversations (messaging, and the MCP, OpenAI and A2A faces, which start
 * replies too), the other built-in endpoints, or plugin routes; none for health, which load balancers and probes
 * call and which touches nothing.
 */
function budgetOf(path: string): 'messaging' | 'builtIn' | 'plugins' | undefined {
  if (!isBuiltInPath(path)) return 'plugins';
  if (
    path.startsWith('/api/messaging/') ||
    isMcpPath(path) ||
    isOpenAIPath(path) ||
    isA2APath(path)
  ) {
    return 'messaging';
  }
  return path === HEALTH_PATH ? undefined : 'builtIn';
}
