import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Each test file starts a real server with an in-memory database, which takes a few seconds.
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
