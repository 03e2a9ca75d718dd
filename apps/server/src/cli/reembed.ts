import { ReembedError, runReembed, type ReembedResult } from '@parley/server';
import { ConfigError, loadConfig, type ParleyConfig } from '@parley/server/config';
import { describeStartupError } from './describe-startup-error';
import { UsageError } from './parse-command';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `parley reembed [--agent <id>]`, read: the agent, and the arguments left for the settings (`--character`). */
export function parseReembedArgs(args: readonly string[]): {
  agentId?: string;
  rest: string[];
} {
  const rest: string[] = [];
  let agentId: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const value =
      arg === '--agent' ? args[++index] : arg.startsWith('--agent=') ? arg.slice(8) : null;
    if (value === null) {
      rest.push(arg);
      continue;
    }
    if (value === undefined || !UUID.test(value)) {
      throw new UsageError(
        `--agent takes an agent's id (a UUID, as GET /api/agents lists them), not "${value ?? ''}"`,
      );
    }
    agentId = value.toLowerCase();
  }
  return { ...(agentId ? { agentId } : {}), rest };
}

const modelOf = (record: { model: string; dimensions: number }) =>
  `${record.model} (${record.dimensions})`;

/** The final line of one agent. */
export function agentLine(result: ReembedResult): string {
  const cleared =
    result.cleared > 0
      ? `; ${result.cleared} vector${result.cleared === 1 ? '' : 's'} without a text removed`
      : '';
  return `agent ${result.agentId}: ${result.memories} memor${result.memories === 1 ? 'y' : 'ies'} re-embedded, ${modelOf(result.before)} → ${modelOf(result.after)}${cleared}`;
}

/**
 * `parley reembed`: embeds again, with the embedder the settings give (`EMBEDDING_MODEL`…), the memories of every
 * agent whose vectors were embedded by another model or length, in the database the server uses, so that the
 * server starts again. Each agent is switched wholly or not at all. Prints each page's progress and one line per
 * agent. Resolves with the exit code: 0 done (or nothing to do), 1 failed (what was not finished stays on its old
 * model; running again goes on), 2 for a bad command line.
 */
export async function runReembedCommand(
  args: readonly string[],
  out: (text: string) => void = (text) => void process.stdout.write(text),
  err: (text: string) => void = (text) => void process.stderr.write(text),
): Promise<number> {
  let parsed: ReturnType<typeof parseReembedArgs>;
  try {
    parsed = parseReembedArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`parley: ${error.message}\n`);
    return 2;
  }
  let config: ParleyConfig | undefined;
  try {
    config = await loadConfig({ env: process.env, argv: parsed.rest, cwd: process.cwd() });
    const outcome = await runReembed({
      database: config.databaseUrl
        ? { kind: 'postgres', url: config.databaseUrl }
        : { kind: 'pglite', dataDir: config.dataDir },
      env: config.env,
      ...(parsed.agentId ? { agentId: parsed.agentId } : {}),
      onProgress: ({ agentId, done, total }) =>
        out(`agent ${agentId}: ${done}/${total} memories embedded\n`),
      onAgent: (result) => out(`${agentLine(result)}\n`),
    });
    const current = modelOf(outcome.current);
    if (outcome.results.length > 0) {
      out(
        `parley reembed: done; ${outcome.results.length} agent${outcome.results.length === 1 ? '' : 's'} now on ${current}\n`,
      );
    } else if (!parsed.agentId) {
      out(`parley reembed: every agent's memories are embedded by ${current}; nothing to do\n`);
    } else if (outcome.recorded) {
      out(
        `parley reembed: agent ${parsed.agentId}'s memories are embedded by ${modelOf(outcome.recorded)}; nothing to do\n`,
      );
    } else {
      out(`parley reembed: agent ${parsed.agentId} has no stored vectors; nothing to do\n`);
    }
    return 0;
  } catch (error) {
    err(`parley reembed: ${describeReembedError(error, config)}\n`);
    return 1;
  }
}

/** One line for why the run failed, saying what to do. */
function describeReembedError(error: unknown, config: ParleyConfig | undefined): string {
  if (error instanceof ReembedError) {
    return `${error.message}, nothing of it was changed; run \`parley reembed\` again once that is fixed`;
  }
  if (error instanceof ConfigError) return error.message;
  if ((error as { code?: unknown }).code === 'CONFLICT' && config && !config.databaseUrl) {
    // The embedded database's lock: a running server holds it.
    const pid = /\(pid (\d+)\)/.exec((error as Error).message)?.[1];
    return `DATA_DIR ${config.dataDir} is in use by a running server${pid ? ` (pid ${pid})` : ''}: stop the server first (the embedded database takes one process at a time); nothing was changed`;
  }
  return describeStartupError(error, config);
}
