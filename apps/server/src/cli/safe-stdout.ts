/**
 * Makes writes to a closed stdout or stderr pipe (`parley | head -2`) harmless: node reports EPIPE as an
 * `error` event, which, unhandled, would crash the server mid-request. Output is dropped from then on.
 */
export function ignoreClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    });
  }
}
