import { defineConfig } from 'vite';

/** The page is served by the Parley server at `/`; in development vite proxies the API and socket to it. */
export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // One small entry and one stylesheet: nothing is worth a second request.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    rollupOptions: {
      // @parley/tee's quote verifier imports node:crypto, which has no browser build. The page uses only the
      // package's browser-safe parts (quote parsing, attestation digests); the verifier's imports are shimmed
      // as undefined and tree-shaken away with it.
      shimMissingExports: true,
    },
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:3000',
      '/socket.io': { target: 'ws://127.0.0.1:3000', ws: true },
    },
  },
});
