import { parleyBuild } from '../../tsup.base';

// An executable, not a library: no type declarations, and always a clean dist/.
export default parleyBuild({
  entry: ['src/main.ts'],
  dts: false,
  clean: true,
  banner: { js: '#!/usr/bin/env node' },
});
