import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing.ts',
    config: 'src/config/index.ts',
    health: 'src/health/index.ts',
    metrics: 'src/metrics/index.ts',
    internal: 'src/internal.ts',
    // The embedded database's thread, loaded by file name next to index.js (see pglite-worker-client.ts).
    'pglite-worker': 'src/storage/pglite-worker.js',
  },
  format: ['esm'],
  dts: {
    entry: {
      index: 'src/index.ts',
      testing: 'src/testing.ts',
      config: 'src/config/index.ts',
      health: 'src/health/index.ts',
      metrics: 'src/metrics/index.ts',
      internal: 'src/internal.ts',
    },
  },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
