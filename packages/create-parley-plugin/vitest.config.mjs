import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.mjs'],
    // Packs three packages and installs them into a new folder.
    testTimeout: 240_000,
  },
});
