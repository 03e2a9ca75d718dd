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
});
