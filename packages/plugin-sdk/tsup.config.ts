import { parleyBuild } from '../../tsup.base';

export default parleyBuild({
  entry: {
    index: 'src/index.ts',
    'extractors/index': 'src/extractors/index.ts',
    'testing/index': 'src/testing/index.ts',
  },
});
