import { runPluginTestCommand } from './cli/run-plugin-test-command';
import { serve } from './cli/serve';

/**
 * The `parley` command. `parley [--character PATH]…` starts the server; `parley test [--character PATH]…` runs
 * every loaded plugin's test suites against a live in-process server and exits 1 when one fails.
 */
async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === 'test') {
    process.exitCode = await runPluginTestCommand(argv.slice(1));
    return;
  }
  await serve(argv);
}

/** The command-line arguments, without a leading `--` that package-manager scripts pass through as is. */
function commandLine(args: readonly string[]): readonly string[] {
  return args[0] === '--' ? args.slice(1) : args;
}

void main(commandLine(process.argv.slice(2)));
