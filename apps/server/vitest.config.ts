import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The tests spawn the built CLI, which starts a real server with an embedded database.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
