import { UsageError } from './parse-command';

/** One server-sent event of a reply's stream. */
interface ReplyEvent {
  event: string;
  data: Record<string, unknown>;
}

/** A tool call as the `done` event records it. */
interface ToolCall {
  toolCallId: string;
  toolName: string;
  input?: unknown;
  output?: unknown;
  error?: string;
  step?: number;
}

/** Longest stretch of a tool's input or output printed. */
const SHOWN = 160;
/** Most bytes of events read: a reply is bounded, this is a backstop. */
const MAX_BYTES = 8 * 1024 * 1024;
/** How long to wait for the reply's end (a reply paused for approval waits for a person). */
const WAIT_MS = 120_000;

/** What `parley reply` is asked: the reply, the server, its token. */
export interface ReplyStepsArgs {
  replyId: string;
  url: string;
  token?: string;
}

/** Reads `parley reply <replyId> [--url URL]`; the token comes from SERVER_AUTH_TOKEN. */
export function parseReplyArgs(
  args: readonly string[],
  env: Record<string, string | undefined>,
): ReplyStepsArgs {
  let replyId: string | undefined;
  let url = env.SERVER_URL || `http://127.0.0.1:${env.PORT || '3000'}`;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--url') {
      const value = args[(i += 1)];
      if (!value) throw new UsageError('--url needs an address (http://host:port)');
      url = value;
    } else if (arg.startsWith('--url=')) url = arg.slice('--url='.length);
    else if (arg.startsWith('-')) throw new UsageError(`unknown option "${arg}" for parley reply`);
    else if (replyId === undefined) replyId = arg;
    else throw new UsageError(`parley reply takes one reply id, not "${arg}"`);
  }
  if (!replyId || !/^[0-9a-f-]{36}$/i.test(replyId)) {
    throw new UsageError('usage: parley reply <replyId> [--url http://host:port]');
  }
  return { replyId, url: url.replace(/\/+$/, ''), token: env.SERVER_AUTH_TOKEN || undefined };
}

/** The events of an SSE body (`event:` and one `data:` line each). */
export function parseEvents(body: string): ReplyEvent[] {
  const events: ReplyEvent[] = [];
  for (const block of body.split('\n\n')) {
    let event = 'message';
    let data: string | undefined;
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data = line.slice(5).trim();
    }
    if (data === undefined) continue;
    try {
      events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
    } catch {
      // Not an event of ours: skipped.
    }
  }
  return events;
}

const shown = (value: unknown): string => {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > SHOWN ? `${flat.slice(0, SHOWN)}…` : flat;
};

/**
 * A reply's steps as text: each model call (a step) with the tool calls it made, their arguments and outcome or
 * error, then how the reply ended. `arrivedAt` (ms since the request, per event) shows how long each call took
 * when the reply was followed while it ran; a stored reply's events all arrive at once, and show none.
 */
export function formatSteps(replyId: string, events: ReplyEvent[], arrivedAt: number[]): string {
  const lines = [`reply ${replyId}`];
  const seenAt = new Map<string, number>();
  const tookMs = new Map<string, number>();
  events.forEach(({ event, data }, index) => {
    const id = typeof data.toolCallId === 'string' ? data.toolCallId : '';
    if (event === 'tool_call') seenAt.set(id, arrivedAt[index] ?? 0);
    if (event === 'tool_result' && seenAt.has(id)) {
      tookMs.set(id, Math.round((arrivedAt[index] ?? 0) - seenAt.get(id)!));
    }
  });
  const end = events.find((each) => each.event === 'done' || each.event === 'error');
  const approvals = events.filter((each) => each.event === 'approval_request');
  const calls: ToolCall[] =
    end?.event === 'done'
      ? ((end.data.toolCalls as ToolCall[] | undefined) ?? [])
      : events
          .filter((each) => each.event === 'tool_call')
          .map(({ data }) => {
            const result = events.find(
              (each) => each.event === 'tool_result' && each.data.toolCallId === data.toolCallId,
            )?.data;
            return { ...(data as unknown as ToolCall), ...(result as Partial<ToolCall>) };
          });
  // A step's calls are all announced before any of their results: a call after a result is the next step's.
  const stepOf = new Map<string, number>();
  let step = 0;
  let lastTool = '';
  for (const { event, data } of events) {
    if (event === 'tool_call') {
      if (lastTool === 'tool_result') step += 1;
      stepOf.set(String(data.toolCallId), step);
    }
    if (event === 'tool_call' || event === 'tool_result') lastTool = event;
  }
  const steps = new Map<number, ToolCall[]>();
  calls.forEach((call, index) => {
    const at = call.step ?? stepOf.get(call.toolCallId) ?? index;
    steps.set(at, [...(steps.get(at) ?? []), call]);
  });
  for (const [step, stepCalls] of [...steps].sort(([a], [b]) => a - b)) {
    lines.push(`  step ${step}: model call → ${stepCalls.length} tool call(s)`);
    for (const call of stepCalls) {
      const took = tookMs.get(call.toolCallId);
      const time = took !== undefined && took > 0 ? ` (${took} ms)` : '';
      lines.push(`    ${call.toolName} [${call.toolCallId}] ${shown(call.input ?? {})}${time}`);
      lines.push(
        call.error !== undefined
          ? `      ✗ error: ${shown(call.error)}`
          : `      ✓ ${shown(call.output ?? null)}`,
      );
    }
  }
  for (const { data } of approvals) {
    lines.push(`  waits for approval: ${String(data.toolName)} [${String(data.toolCallId)}]`);
  }
  if (end?.event === 'done') {
    const text = typeof end.data.text === 'string' ? end.data.text : '';
    lines.push(`  step ${steps.size}: model call → answer (${text.length} characters)`);
    lines.push(`    ${shown(text)}`);
    lines.push(
      end.data.empty ? `  ended without a message (${String(end.data.reason)})` : '  done',
    );
  } else if (end) {
    lines.push(`  failed: ${String(end.data.code)}: ${String(end.data.message)}`);
  } else {
    lines.push(approvals.length > 0 ? '  paused' : '  (no end seen)');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `parley reply <replyId>`: prints one reply's steps — its model calls, each tool call with its arguments,
 * outcome or error (and how long it took when the reply is followed while it runs) — read from the server's
 * `GET /api/messaging/replies/:replyId/events`, so a plugin author sees what the agent did without a tracing
 * backend. Exit 0 once printed, 1 when the server answers an error, 2 for a bad command line.
 */
export async function runReplySteps(
  args: readonly string[],
  env: Record<string, string | undefined> = process.env,
  out: (text: string) => void = (text) => void process.stdout.write(text),
): Promise<number> {
  let parsed: ReplyStepsArgs;
  try {
    parsed = parseReplyArgs(args, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`parley: ${error.message}\n`);
    return 2;
  }
  const { replyId, url, token } = parsed;
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(`${url}/api/messaging/replies/${replyId}/events`, {
      headers: { accept: 'text/event-stream', ...(token ? { 'x-api-key': token } : {}) },
      signal: AbortSignal.timeout(WAIT_MS),
    });
  } catch (error) {
    out(`parley reply: cannot reach ${url}: ${error instanceof Error ? error.message : 'error'}\n`);
    return 1;
  }
  if (!response.ok || !response.body) {
    const body = await response.text().catch(() => '');
    out(`parley reply: the server answered ${response.status}: ${shown(body)}\n`);
    return 1;
  }
  // Read as it comes, so the time between a call and its result is what the reply took.
  const decoder = new TextDecoder();
  let buffered = '';
  let bytes = 0;
  const events: ReplyEvent[] = [];
  const arrivedAt: number[] = [];
  try {
    for await (const chunk of response.body) {
      bytes += (chunk as Uint8Array).byteLength;
      if (bytes > MAX_BYTES) break;
      buffered += decoder.decode(chunk as Uint8Array, { stream: true });
      const cut = buffered.lastIndexOf('\n\n');
      if (cut < 0) continue;
      for (const event of parseEvents(buffered.slice(0, cut))) {
        events.push(event);
        arrivedAt.push(performance.now() - started);
      }
      buffered = buffered.slice(cut + 2);
      // The end, or a pause: a paused reply goes on only once a person decides.
      if (events.some((each) => ['done', 'error', 'approval_request'].includes(each.event))) break;
    }
  } catch {
    // Timed out waiting (a paused reply): what came is printed.
  }
  out(formatSteps(replyId, events, arrivedAt));
  return 0;
}
