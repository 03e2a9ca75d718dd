/** A bad setting or start-up input. Its message is one line, safe to print, naming the problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
