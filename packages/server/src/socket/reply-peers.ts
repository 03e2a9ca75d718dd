import type { Server } from 'socket.io';
import type { Logger } from 'pino';
import type { CancelOutcome, MessagingService, ReplyPeers } from '../messaging/messaging-service';
import type { ParleySocketServer } from './create-socket-server';

/** The server-side event the processes of a cluster ask each other about replies on. */
export const REPLY_CONTROL_EVENT = 'parley:reply-control';

/**
 * The longest a process waits for the others' answers (ms). The cluster adapter itself answers after 5 s with
 * the answers that came (a process that died stays counted until its heartbeat expires); this is a backstop.
 */
export const PEER_ANSWER_MS = 6000;

type ReplyControlRequest =
  | { op: 'cancel'; replyId: string; channelId?: string }
  | { op: 'interrupt'; channelId: string }
  | { op: 'busy'; channelId: string };

/**
 * The other processes of the cluster, reached through socket.io's own server-to-server channel (the cluster
 * adapter's `serverSideEmit` with acknowledgements), and this process answering them. Only meaningful with a
 * cluster adapter; without one there are no peers.
 */
export function serveReplyPeers(
  ioServer: ParleySocketServer,
  messaging: () => MessagingService,
  logger: Logger,
): ReplyPeers {
  const io = ioServer as unknown as Server;
  io.on(REPLY_CONTROL_EVENT, (request: unknown, answer: unknown) => {
    if (typeof answer !== 'function') return;
    (answer as (response: unknown) => void)(answerRequest(messaging(), request));
  });

  // The adapter answers with every process's answer, or on its own timeout with those that came; this process
  // waits no longer than PEER_ANSWER_MS either way.
  function ask(request: ReplyControlRequest): Promise<unknown[]> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        logger.warn({ op: request.op }, 'the processes of the cluster did not all answer in time');
        resolve([]);
      }, PEER_ANSWER_MS);
      timer.unref();
      try {
        io.serverSideEmit(REPLY_CONTROL_EVENT, request, (error: unknown, responses: unknown) => {
          clearTimeout(timer);
          if (error) logger.warn({ op: request.op }, 'a process of the cluster did not answer');
          resolve(Array.isArray(responses) ? responses : []);
        });
      } catch (error) {
        clearTimeout(timer);
        logger.warn({ err: error, op: request.op }, 'could not ask the processes of the cluster');
        resolve([]);
      }
    });
  }

  return {
    async cancel(replyId, channelId) {
      const answers = await ask({ op: 'cancel', replyId, ...(channelId ? { channelId } : {}) });
      return answers.filter(isOutcome);
    },
    async interrupt(channelId) {
      const answers = await ask({ op: 'interrupt', channelId });
      return answers.reduce<number>((sum, n) => sum + (typeof n === 'number' ? n : 0), 0);
    },
    async busy(channelId) {
      return (await ask({ op: 'busy', channelId })).includes(true);
    },
  };
}

function answerRequest(messaging: MessagingService, request: unknown): unknown {
  if (typeof request !== 'object' || request === null) return null;
  const { op, replyId, channelId } = request as Record<string, unknown>;
  const channel = typeof channelId === 'string' ? channelId : undefined;
  switch (op) {
    case 'cancel':
      return typeof replyId === 'string' ? messaging.cancelHere(replyId, channel) : 'unknown';
    case 'interrupt':
      return channel ? messaging.interruptHere(channel) : 0;
    case 'busy':
      return channel ? messaging.busyHere(channel) : false;
    default:
      return null;
  }
}

const OUTCOMES = new Set<unknown>(['cancelled', 'ended', 'unknown']);
const isOutcome = (value: unknown): value is CancelOutcome => OUTCOMES.has(value);
