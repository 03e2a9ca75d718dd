import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env';

/** What every framed-content answer says: no site may put it in a frame. */
const FRAME_ANCESTORS = "frame-ancestors 'none'";

/**
 * Forbids framing (clickjacking): `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`, added to a policy
 * the route set itself. For the built-in endpoints and the API docs page, which no other site has a reason to
 * frame.
 */
export function frameGuard(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    try {
      c.res.headers.set('X-Frame-Options', 'DENY');
    } catch {
      // A response with immutable headers (a fetched one): copied once so its headers can be set.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set('X-Frame-Options', 'DENY');
    }
    const policy = c.res.headers.get('Content-Security-Policy');
    if (!policy) c.res.headers.set('Content-Security-Policy', FRAME_ANCESTORS);
    else if (!/frame-ancestors/i.test(policy)) {
      c.res.headers.set('Content-Security-Policy', `${policy}; ${FRAME_ANCESTORS}`);
    }
  };
}
