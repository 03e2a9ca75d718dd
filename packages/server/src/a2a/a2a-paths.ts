import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isUuid, uuidFromBytes } from '@parley/core';
import type { AgentRegistry } from '../agents/agent-registry';
import type { MessagingService } from '../messaging/messaging-service';
import type { DatabaseSchema } from '../storage/schema';

/** Where the A2A face lives: `/a2a/{agentId}` (JSON-RPC) and `/a2a/{agentId}/.well-known/agent-card.json`. */
export const A2A_PATH = '/a2a';
/** The well-known path of the default agent's card (and, under `/a2a/{agentId}`, of each agent's). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
/** The `source` of the messages that enter through A2A. */
export const A2A_SOURCE = 'a2a';

/** Whether a path belongs to the A2A face (its cards included). */
export function isA2APath(path: string): boolean {
  return path === AGENT_CARD_PATH || path === A2A_PATH || path.startsWith(`${A2A_PATH}/`);
}

/** Whether a path is an agent card: open for discovery, as A2A asks (it names the auth the calls need). */
export function isAgentCardPath(path: string): boolean {
  return (
    path === AGENT_CARD_PATH || (path.startsWith(`${A2A_PATH}/`) && path.endsWith(AGENT_CARD_PATH))
  );
}

/** What the A2A face needs. */
export interface A2AFaceContext {
  agents: AgentRegistry;
  messaging: MessagingService;
  /** Whether the server asks for a token (`SERVER_AUTH_TOKEN`): the card then names the schemes. */
  authRequired: boolean;
  /** Interval of keep-alive comments on a streamed answer (ms). */
  sseKeepAliveMs: number;
  /** The server's version, given as the card's. */
  version: string;
  /** An agent's actions, as its plugins registered them (its card's skills). */
  actionsOf: (agentId: string) => readonly { name: string; description?: string }[];
  /** The database the tasks are kept in (`a2a_tasks`), shared by every process on it. */
  db: Kysely<DatabaseSchema>;
}

/** A UUID (version 8) named by `text`. */
export const namedUuid = (text: string): string =>
  uuidFromBytes(createHash('sha256').update(text).digest(), 8);

/**
 * The channel of an A2A context: the context id itself when it is a UUID (then channel access decides who may use
 * it), else a UUID named by it, the agent and the person (so two people naming the same context get two channels).
 */
export function channelOfContext(agentId: string, contextId: string, personId?: string): string {
  const named = `parley:a2a-context:${agentId}:${contextId}${personId === undefined ? '' : `:${personId}`}`;
  return isUuid(contextId) ? contextId.toLowerCase() : namedUuid(named);
}
