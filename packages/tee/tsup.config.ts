import { parleyBuild } from '../../tsup.base';

// The library, and the `parley-tee` command (package.json `bin`).
export default parleyBuild({ entry: ['src/index.ts', 'src/cli.ts'] });
