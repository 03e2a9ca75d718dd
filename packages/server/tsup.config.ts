import { parleyBuild, withDeclarations } from '../../tsup.base';

const entry = {
  index: 'src/index.ts',
  testing: 'src/testing.ts',
  config: 'src/config/index.ts',
  health: 'src/health/index.ts',
  metrics: 'src/metrics/index.ts',
};

export default parleyBuild({
  // The embedded database's thread, loaded by file name next to index.js (see pglite-worker-client.ts).
  entry: { ...entry, 'pglite-worker': 'src/storage/pglite-worker.js' },
  dts: withDeclarations && { entry },
  // Non-ASCII characters written as escapes: V8 keeps each module's source for as long as it runs, in one byte a
  // character when all of it is Latin-1 and two otherwise; three characters made index.js's 0.8 MB take 1.6 MB
  // of heap. Comments and regular expressions are not escaped: keep them ASCII (docs/decisions.md, issue 42).
  esbuildOptions(options) {
    options.charset = 'ascii';
  },
});
