import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts'],
  format: ['esm'],
  // PARLEY_NO_DTS=1 (the `start` script) skips type declarations: 90% of the build, and a server needs none.
  dts: !process.env.PARLEY_NO_DTS,
  sourcemap: true,
  clean: !process.env.PARLEY_NO_DTS,
  target: 'node20',
});
