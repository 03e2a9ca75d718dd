import { redactText } from '../../redaction/redact';
import { loadedMcpClientSdk } from './mcp-sdk';

/** Longest failure description kept (readiness, logs, the model). */
const MAX_DESCRIPTION = 200;

/**
 * What a failed request to an MCP server says about the server: `tool` the server answered with an error (it is
 * up), `timeout` it did not answer in time (it may be busy), `outage` it cannot be reached (the connection closed,
 * the process exited, the address refuses, the session is gone).
 */
export type McpFailureKind = 'tool' | 'timeout' | 'outage';

/** The kind of a request's failure (see {@link McpFailureKind}). */
export function classifyMcpFailure(error: unknown): McpFailureKind {
  const sdk = loadedMcpClientSdk();
  if (sdk && error instanceof sdk.McpError) {
    const { ErrorCode } = sdk;
    if (error.code === (ErrorCode.ConnectionClosed as number)) return 'outage';
    if (error.code === (ErrorCode.RequestTimeout as number)) return 'timeout';
    return 'tool';
  }
  return 'outage';
}

/**
 * A short description of a failure, safe to show in readiness, logs and to the model: an error code or HTTP
 * status and the SDK's words, never a URL (it may carry a token), a stack or a response body. The server's own
 * words (a JSON-RPC error's message) are redacted as everything that leaves the server is: the credentials it
 * repeats (its env and header secrets, `Bearer …`, `API_TOKEN=…`) never reach the model, readiness or a log.
 */
export function describeMcpFailure(error: unknown): string {
  return cut(redactText(describe(error)));
}

function describe(error: unknown): string {
  const sdk = loadedMcpClientSdk();
  if (sdk && (error instanceof sdk.StreamableHTTPError || error instanceof sdk.SseError)) {
    return typeof error.code === 'number' && error.code > 0
      ? `HTTP ${error.code}`
      : 'the HTTP connection failed';
  }
  if (sdk && error instanceof sdk.McpError) {
    const { ErrorCode } = sdk;
    if (error.code === (ErrorCode.ConnectionClosed as number)) return 'the connection closed';
    if (error.code === (ErrorCode.RequestTimeout as number)) return 'no answer in time';
    return firstLine(error.message.replace(/^MCP error -?\d+: /, ''));
  }
  const cause = (error as { cause?: unknown })?.cause;
  const code = codeOf(error) ?? codeOf(cause);
  if (code !== undefined) return code;
  // fetch's "fetch failed" says why only in its cause ("bad port", "invalid URL"…).
  if (error instanceof Error && cause instanceof Error)
    return firstLine(`${error.message}: ${cause.message}`);
  if (error instanceof Error) return firstLine(error.message);
  return 'failed';
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? code : undefined;
}

/** The first line, cut only after redaction (a secret cut in two would not be found). */
function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

function cut(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length <= MAX_DESCRIPTION ? line : `${line.slice(0, MAX_DESCRIPTION - 1)}…`;
}
