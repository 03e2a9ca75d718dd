import { ParleyError } from '@parley/core';
import type { AgentRuntime, Route } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { PluginRouteRequest } from '../express-compat/plugin-route-request';
import { PluginRouteResponse } from '../express-compat/plugin-route-response';

/** The body of a failed plugin route (SPEC.md "Errors": `error` is a string on plugin routes). */
function failureResponse(status: number, error: string): Response {
  return Response.json({ success: false, error }, { status });
}

/** What {@link runRouteHandler} needs. */
export interface RunRouteHandlerOptions {
  handler: NonNullable<Route['handler']>;
  request: PluginRouteRequest;
  runtime: AgentRuntime;
  timeoutMs: number;
  /** The request's logger (it carries the request id). */
  logger: Logger;
}

type Outcome =
  { kind: 'sent' } | { kind: 'done' } | { kind: 'failed'; error: unknown } | { kind: 'timeout' };

/**
 * Runs a plugin handler and turns what it wrote into a `Response`. The response goes out as soon as the handler
 * sends or starts streaming, Express-style, so a webhook can answer and keep working, and a stream (server-sent
 * events) stays open until the handler ends it.
 *
 * - A handler that throws or rejects before sending gives 500 with no internal detail (the cause is logged),
 *   unless it threw a client error (a ParleyError with a 4xx status): then that status and its message.
 * - One that returns without sending gives 204 (or the status it set), unless it fixed its head (`writeHead`:
 *   it streams), started reading the body stream (a multer-style parser answers from its callback) or called
 *   `sendFile`: then the answer is awaited.
 * - One that has not sent within `timeoutMs` gives 504, and what it writes later is dropped.
 */
export async function runRouteHandler(options: RunRouteHandlerOptions): Promise<Response> {
  const { logger, request } = options;
  const response = new PluginRouteResponse({
    onIgnoredWrite: (what) =>
      logger.warn({ write: what }, 'plugin route wrote after its response was sent; ignored'),
    onStreamError: (error) => logger.warn({ err: error }, 'plugin route response stream failed'),
  });
  // Starting inside then() turns a synchronous throw into a rejection.
  const running = Promise.resolve().then(() => options.handler(request, response, options.runtime));
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), options.timeoutMs);
  });
  const sent = response.committed.then((): Outcome => ({ kind: 'sent' }));
  let outcome = await Promise.race<Outcome>([
    sent,
    running.then(
      () => ({ kind: 'done' }),
      (error: unknown) => ({ kind: 'failed', error }),
    ),
    timedOut,
  ]);
  if (outcome.kind === 'done' && !response.isCommitted) {
    const answerPending = request.isBodyStreamInUse || response.isSendPending;
    if (answerPending && !response.headersSent) {
      outcome = await Promise.race([sent, timedOut]);
    } else {
      response.finishUnsent();
      outcome = { kind: 'sent' };
    }
  }
  clearTimeout(timer);

  if (outcome.kind !== 'failed') {
    // The handler goes on in the background; a late failure must be logged, not crash the process.
    running.catch((error: unknown) => {
      logger.error({ err: error }, 'plugin route failed after its response');
      response.abort(error instanceof Error ? error : new Error(String(error)));
    });
  }
  if (outcome.kind === 'timeout') {
    response.close();
    logger.warn({ timeoutMs: options.timeoutMs }, 'plugin route timed out');
    return failureResponse(504, 'Route timed out');
  }
  if (outcome.kind === 'failed' && !response.isCommitted) {
    response.close();
    // A client error the handler let through (bad input to runtime.sendMessage, say) is the client's: its
    // status and safe message, not a 500.
    const { error } = outcome;
    if (ParleyError.isInstance(error) && error.status < 500) {
      logger.debug({ code: error.code }, error.message);
      return failureResponse(error.status, error.message);
    }
    logger.error({ err: error }, 'plugin route failed');
    return failureResponse(500, 'Internal server error');
  }
  if (outcome.kind === 'failed') {
    logger.error({ err: outcome.error }, 'plugin route failed after its response');
    response.abort(outcome.error instanceof Error ? outcome.error : new Error('Route failed'));
  }
  return response.committed;
}
