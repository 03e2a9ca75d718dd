import { helpText } from './cli/help-text';
import { parseCommand, UsageError } from './cli/parse-command';
import { ignoreClosedPipes } from './cli/safe-stdout';
import { appVersion } from './cli/version';

/**
 * The `parley` command: `start` (the default), `test`, `doctor`, `reply`, `reembed`, `help`, `--help`, `--version`. An unknown word
 * exits 2 with one line.
 */
async function main(argv: readonly string[]): Promise<void> {
  ignoreClosedPipes();
  let command: ReturnType<typeof parseCommand>;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`parley: ${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  switch (command.command) {
    case 'help':
      process.stdout.write(helpText(appVersion()));
      return;
    case 'version':
      process.stdout.write(`parley ${appVersion()}\n`);
      return;
    case 'test':
      // Commands load the server only when they run, so that --help and --version answer at once.
      process.exitCode = await (
        await import('./cli/run-plugin-test-command')
      ).runPluginTestCommand(command.args);
      return;
    case 'doctor':
      process.exitCode = await (await import('./cli/doctor')).runDoctor(command.args);
      // Always ends once the checks are done: a driver still retrying in the background (a Redis or a
      // database that does not answer) must not keep doctor running. stdout is flushed first.
      process.stdout.write('', () => process.exit());
      return;
    case 'reply':
      process.exitCode = await (await import('./cli/reply-steps')).runReplySteps(command.args);
      return;
    case 'reembed':
      process.exitCode = await (await import('./cli/reembed')).runReembedCommand(command.args);
      // The database is closed by now; an embedder's kept-alive connection must not hold the process.
      process.stdout.write('', () => process.exit());
      return;
    case 'start':
      await (await import('./cli/serve')).serve(command.args);
  }
}

void main(process.argv.slice(2));
