import { defineConfig } from 'vite';

/** In development vite proxies the API to a Parley server on 127.0.0.1:3000. */
export default defineConfig({
  esbuild: { jsx: 'automatic' },
  build: { outDir: 'dist', emptyOutDir: true, reportCompressedSize: false },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
