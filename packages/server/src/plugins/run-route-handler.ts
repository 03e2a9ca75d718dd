import type { AgentRuntime, RouteHandler, RouteRequest } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import { createRouteResponse } from './create-route-response';

/** The body of a failed plugin route (SPEC.md "Errors": `error` is a string on plugin routes). */
function failureResponse(status: 500 | 504, error: string): Response {
  return Response.json({ success: false, error }, { status });
}

/** What {@link runRouteHandler} needs. */
export interface RunRouteHandlerOptions {
  handler: RouteHandler;
  request: RouteRequest;
  runtime: AgentRuntime;
  timeoutMs: number;
  /** The request's logger (it carries the request id). */
  logger: Logger;
}

type Outcome =
  { kind: 'sent' } | { kind: 'done' } | { kind: 'failed'; error: unknown } | { kind: 'timeout' };

/**
 * Runs a plugin handler and turns what it wrote into a `Response`. The response goes out as soon as the handler
 * sends, Express-style, so a webhook can answer and keep working. A handler that throws or rejects before
 * sending gives 500 with no internal detail (the cause is logged); one that neither sends nor returns within
 * `timeoutMs` gives 504, and what it writes later is dropped.
 */
export async function runRouteHandler(options: RunRouteHandlerOptions): Promise<Response> {
  const { logger } = options;
  const controller = createRouteResponse((what) =>
    logger.warn({ write: what }, 'plugin route wrote after its response was sent; ignored'),
  );
  // Starting inside then() turns a synchronous throw into a rejection.
  const running = Promise.resolve().then(() =>
    options.handler(options.request, controller.response, options.runtime),
  );
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), options.timeoutMs);
  });
  const outcome = await Promise.race<Outcome>([
    controller.sent.then(() => ({ kind: 'sent' })),
    running.then(
      () => ({ kind: 'done' }),
      (error: unknown) => ({ kind: 'failed', error }),
    ),
    timedOut,
  ]);
  clearTimeout(timer);

  if (outcome.kind !== 'failed' && outcome.kind !== 'done') {
    // The handler goes on in the background; a late failure must be logged, not crash the process.
    running.catch((error: unknown) =>
      logger.error({ err: error }, 'plugin route failed after its response'),
    );
  }
  if (outcome.kind === 'timeout') {
    controller.close();
    logger.warn({ timeoutMs: options.timeoutMs }, 'plugin route timed out');
    return failureResponse(504, 'Route timed out');
  }
  if (outcome.kind === 'failed' && !controller.isSent) {
    controller.close();
    logger.error({ err: outcome.error }, 'plugin route failed');
    return failureResponse(500, 'Internal server error');
  }
  if (outcome.kind === 'failed')
    logger.error({ err: outcome.error }, 'plugin route failed after its response');
  controller.close();
  return controller.toResponse();
}
