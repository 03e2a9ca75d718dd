import { parleyBuild } from '../../tsup.base';

export default parleyBuild({
  // One entry per subpath, so that `@parley/client/rest` never pulls in socket.io-client.
  entry: {
    index: 'src/index.ts',
    'rest/index': 'src/rest/index.ts',
    'sse/index': 'src/sse/index.ts',
    'socket/index': 'src/socket/index.ts',
  },
  splitting: true,
  // Browsers and Node 20 alike: nothing newer than ES2022 syntax.
  target: 'es2022',
  platform: 'neutral',
});
