import { version } from '../../package.json';

/**
 * The version of `@parley/server`: the `info.version` of both API documents, since the interface they describe
 * is this package's. Read from its package.json at build time, so it is always the version that runs.
 */
export const SERVER_PACKAGE_VERSION: string = version;
