import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing.ts',
    config: 'src/config/index.ts',
    health: 'src/health/index.ts',
    metrics: 'src/metrics/index.ts',
    // The embedded database's thread, loaded by file name next to index.js (see pglite-worker-client.ts).
    'pglite-worker': 'src/storage/pglite-worker.js',
  },
  format: ['esm'],
  // PARLEY_NO_DTS=1 (the `start` script) skips type declarations: 90% of the build, and a server needs none.
  dts: process.env.PARLEY_NO_DTS
    ? false
    : {
        entry: {
          index: 'src/index.ts',
          testing: 'src/testing.ts',
          config: 'src/config/index.ts',
          health: 'src/health/index.ts',
          metrics: 'src/metrics/index.ts',
        },
      },
  sourcemap: true,
  clean: !process.env.PARLEY_NO_DTS,
  target: 'node20',
});
