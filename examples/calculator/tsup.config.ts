import { parleyBuild } from '../../tsup.base';

export default parleyBuild();
