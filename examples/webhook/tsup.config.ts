import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  // PARLEY_NO_DTS=1 (the `start` script): no type declarations, which need every package's own.
  dts: !process.env.PARLEY_NO_DTS,
  sourcemap: true,
  clean: !process.env.PARLEY_NO_DTS,
  target: 'node20',
});
