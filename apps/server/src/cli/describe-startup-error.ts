import { ConfigError } from '@parley/server';

/** One line for an operator saying why the server could not start. */
export function describeStartupError(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return 'the port is already in use (set PORT to another one)';
  if (code === 'EACCES') return 'permission denied binding the port (use a port above 1023)';
  if (code === 'EADDRNOTAVAIL') return 'HOST is not an address of this machine';
  return error instanceof Error ? error.message : String(error);
}
