/**
 * @module @parley/server/config
 * The one configuration schema of a Parley app: settings from the environment, `.env` and the command line,
 * with every default in one place, turned into `ServerOptions`.
 */
export { ConfigError } from '../errors/config-error';
export { characterPaths, loadConfig, readDotEnv, toServerOptions } from './load-config';
export type { ConfiguredServerOptions, ParleyConfig } from './load-config';
export { loadCharacterFile as loadCharacter } from '../agents/character';
export { findMistypedSettings } from './find-mistyped-settings';
export type { MistypedSetting } from './find-mistyped-settings';
export { maskSetting } from './mask-setting';
export { describeGuards } from '../guards/guard-settings';
export { parseSettings } from './parse-settings';
export {
  KNOWN_SETTINGS,
  PLUGIN_SETTINGS,
  SECRET_SETTINGS,
  modelSettingsSchema,
  serverSettingsSchema,
  settingsSchema,
  teeSettingsSchema,
} from './settings-schema';
export type { Settings } from './settings-schema';
export { createModelFromEnv, toModelSettings } from './model-settings';
export { createModel } from '../models/model-from-env';
export type { ModelSettings } from '../models/model-from-env';
export { parseTeeConfig, toTeeConfig } from './tee-settings';
export { TEE_OFF } from '../tee/tee-config';
export type { TeeConfig } from '../tee/tee-config';
export { DEFAULTS } from '../defaults';
