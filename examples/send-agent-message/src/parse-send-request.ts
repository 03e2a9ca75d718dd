import { findJsonProblem, isRecord, isUuid } from '@parley/plugin-sdk';

/** What `POST /send-agent-message` takes, checked. */
export interface SendAgentMessageRequest {
  channelId: string;
  message: string;
  thought?: string;
  actions?: string[];
  /** The free keys of `metadata` (without `thought` and `actions`). */
  metadata: Record<string, unknown>;
}

type Parsed = { ok: true; value: SendAgentMessageRequest } | { ok: false; error: string };

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * Checks a request body: `channelId` (UUID) and `message` (non-empty) are required; `metadata`, when present,
 * is an object whose `thought` (string) and `actions` (strings) go to the message's raw content and whose other
 * keys stay metadata. Metadata the server could not store (nested over 32 levels, over 256 KiB of JSON, NUL or
 * lone surrogates) is refused here.
 */
export function parseSendRequest(body: unknown): Parsed {
  if (!isRecord(body)) return { ok: false, error: 'Body must be a JSON object' };
  const { channelId, message, metadata = {} } = body;
  if (channelId === undefined || channelId === '')
    return { ok: false, error: 'channelId is required' };
  if (!isUuid(channelId)) return { ok: false, error: 'channelId must be a UUID' };
  if (typeof message !== 'string' || message.trim() === '') {
    return { ok: false, error: 'message is required' };
  }
  if (!isRecord(metadata)) return { ok: false, error: 'metadata must be an object' };
  // Checked here, with the server's own bounds, so that a value too deep to serialise is the caller's 400
  // rather than this route's failure (JSON.stringify overflows the stack on a few thousand levels).
  const problem = findJsonProblem(metadata);
  if (problem) {
    const where = ['metadata', ...problem.path].join('.');
    return { ok: false, error: `${where} ${problem.message}` };
  }
  const { thought, actions, ...rest } = metadata;
  if (thought !== undefined && typeof thought !== 'string') {
    return { ok: false, error: 'metadata.thought must be a string' };
  }
  if (actions !== undefined && !isStringArray(actions)) {
    return { ok: false, error: 'metadata.actions must be an array of strings' };
  }
  const value: SendAgentMessageRequest = { channelId, message, metadata: rest };
  if (thought !== undefined) value.thought = thought;
  if (actions !== undefined) value.actions = actions;
  return { ok: true, value };
}
