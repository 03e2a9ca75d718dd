import { defineConfig } from 'tsup';

export default defineConfig({
  // One entry per subpath, so that `@parley/client/rest` never pulls in socket.io-client.
  entry: {
    index: 'src/index.ts',
    'rest/index': 'src/rest/index.ts',
    'sse/index': 'src/sse/index.ts',
    'socket/index': 'src/socket/index.ts',
  },
  format: ['esm'],
  // PARLEY_NO_DTS=1 (the `start` script) skips type declarations: 90% of the build, and a server needs none.
  dts: !process.env.PARLEY_NO_DTS,
  sourcemap: true,
  clean: !process.env.PARLEY_NO_DTS,
  splitting: true,
  // Browsers and Node 20 alike: nothing newer than ES2022 syntax.
  target: 'es2022',
  platform: 'neutral',
});
