import { createHash, randomUUID } from 'node:crypto';
import type { RequestPerson } from '../../identity/channel-access';
import { isUuid, uuidFromBytes } from '@parley/core';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The header an MCP client repeats on every request once the server named its session. */
export const MCP_SESSION_HEADER = 'mcp-session-id';

/** The name an MCP caller's messages carry in the channel. */
export const MCP_SENDER_NAME = 'MCP client';

/** The `source` of the messages that enter through `/mcp`. */
export const MCP_SOURCE = 'mcp';

/**
 * Who calls: the session id the server handed out at `initialize` (a random UUID it never stores), and the
 * entity the caller's messages are posted as, derived from it. A request without a session (or with one the
 * server could not have made) is the one anonymous MCP entity.
 */
export interface McpCaller {
  readonly sessionId: string | undefined;
  readonly entityId: string;
  /** The signed-in person calling (none for an admin): they speak as themselves, in channels of theirs. */
  readonly person?: RequestPerson;
}

/** A UUID (version 8) named by `text`: the same text, the same id, in every process. */
function namedUuid(text: string): string {
  return uuidFromBytes(createHash('sha256').update(text).digest(), 8);
}

const ANONYMOUS_ENTITY = namedUuid('parley:mcp-entity');

/** A new session id, for the answer to `initialize`. */
export function newSessionId(): string {
  return randomUUID();
}

/** The caller of a request, from its `Mcp-Session-Id` header. */
export function callerOf(sessionHeader: string | undefined): McpCaller {
  const sessionId = isUuid(sessionHeader) ? sessionHeader.toLowerCase() : undefined;
  return {
    sessionId,
    entityId: sessionId ? namedUuid(`parley:mcp-entity:${sessionId}`) : ANONYMOUS_ENTITY,
  };
}

/**
 * The tool calls this process runs, by session and JSON-RPC request id, so that a `notifications/cancelled`
 * (which arrives in a request of its own) reaches the call it names. Only calls of a session can be named:
 * request ids are the client's own counters, the same in every client.
 */
export class RunningCalls {
  readonly #calls = new Map<string, () => void>();

  /** Records a running call and how to stop it; returns the function that forgets it. */
  add(sessionId: string, requestId: RequestId, stop: () => void): () => void {
    const key = keyOf(sessionId, requestId);
    this.#calls.set(key, stop);
    return () => {
      if (this.#calls.get(key) === stop) this.#calls.delete(key);
    };
  }

  /** Stops the call `requestId` of `sessionId` if this process runs it; whether it did. */
  cancel(sessionId: string, requestId: RequestId): boolean {
    const stop = this.#calls.get(keyOf(sessionId, requestId));
    stop?.();
    return stop !== undefined;
  }

  /** How many calls run. */
  get size(): number {
    return this.#calls.size;
  }
}

/** One key per session and request id (`1` and `"1"` are two ids). */
function keyOf(sessionId: string, requestId: RequestId): string {
  return `${sessionId} ${JSON.stringify(requestId)}`;
}
