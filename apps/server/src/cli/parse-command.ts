/** A command line `parley` does not understand. Its message is one line. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The commands of `parley`. */
export const COMMANDS = ['start', 'test', 'doctor', 'reply', 'reembed', 'help'] as const;

/** One of {@link COMMANDS}, or `version`. */
export type CommandName = (typeof COMMANDS)[number] | 'version';

/** What the command line asks for: a command and the arguments left for it (`--character PATH`…). */
export interface ParsedCommand {
  command: CommandName;
  args: readonly string[];
}

/**
 * Reads `parley [command] [--character PATH]… | --help | --version`. The command defaults to `start`; a
 * leading `--` (passed through by package-manager scripts) is dropped; any other word is an error.
 *
 * @throws UsageError naming the unknown word.
 */
export function parseCommand(argv: readonly string[]): ParsedCommand {
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  if (args.includes('--help') || args.includes('-h')) return { command: 'help', args: [] };
  if (args.includes('--version') || args.includes('-v')) return { command: 'version', args: [] };
  const [first, ...rest] = args;
  if (first === undefined || first.startsWith('-')) return { command: 'start', args };
  if (!(COMMANDS as readonly string[]).includes(first)) {
    throw new UsageError(
      `unknown command "${first}" (commands: ${COMMANDS.join(', ')}; see parley --help)`,
    );
  }
  return { command: first as CommandName, args: rest };
}
