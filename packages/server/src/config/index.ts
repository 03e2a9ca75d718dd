/**
 * @module @parley/server/config
 * The one configuration schema of a Parley app: settings from the environment, `.env` and the command line,
 * with every default in one place, turned into `ServerOptions`.
 */
export * from '../errors/config-error';
export * from './load-config';
export { loadCharacterFile as loadCharacter } from '../agents/character';
export * from './find-mistyped-settings';
export * from './mask-setting';
export { describeGuards } from '../guards/guard-settings';
export * from './parse-settings';
export * from './settings-schema';
export * from './model-settings';
export * from './elizaos-plugins';
export {
  createdbCommand,
  databaseCreationAllowed,
  isMissingDatabase,
} from '../storage/missing-database';
export * from '../models/model-from-env';
export * from './tee-settings';
export { TEE_OFF } from '../tee/tee-config';
export type { TeeConfig } from '../tee/tee-config';
export { DEFAULTS } from '../defaults';
