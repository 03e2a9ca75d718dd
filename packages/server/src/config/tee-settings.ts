import type { TeeMode } from '@parley/core';
import {
  DOCKER_SIMULATOR_ENDPOINT,
  DSTACK_SOCKET_PATH,
  TEE_OFF,
  type TeeConfig,
} from '../tee/tee-config';
import { parseSettings } from './parse-settings';
import { teeSettingsSchema } from './settings-schema';

function endpointFor(mode: TeeMode, override: string | undefined): string | undefined {
  switch (mode) {
    case 'OFF':
      return undefined;
    case 'LOCAL':
      return override;
    case 'DOCKER':
      return override ?? DOCKER_SIMULATOR_ENDPOINT;
    case 'PRODUCTION':
      // Production never talks to a simulator, whatever the environment says.
      return DSTACK_SOCKET_PATH;
  }
}

/** The TEE configuration that parsed TEE settings stand for. */
export function toTeeConfig(settings: {
  TEE_MODE: TeeMode;
  TEE_VENDOR: string;
  WALLET_SECRET_SALT?: string | undefined;
  DSTACK_SIMULATOR_ENDPOINT?: string | undefined;
}): TeeConfig {
  const mode = settings.TEE_MODE;
  if (mode === 'OFF') return { ...TEE_OFF, vendor: settings.TEE_VENDOR };
  return {
    mode,
    vendor: settings.TEE_VENDOR,
    salt: settings.WALLET_SECRET_SALT,
    endpoint: endpointFor(mode, settings.DSTACK_SIMULATOR_ENDPOINT),
  };
}

/**
 * Reads the TEE settings alone, for a server built in code: `TEE_MODE` (OFF, LOCAL, DOCKER, PRODUCTION;
 * case-insensitive; default OFF), `TEE_VENDOR` (default phala), `WALLET_SECRET_SALT` (required unless OFF; 8 to
 * 128 characters after trimming) and `DSTACK_SIMULATOR_ENDPOINT` (LOCAL and DOCKER only). The rules are the
 * settings schema's; `loadConfig` reads them with every other setting (`config.tee`), so the app never reads
 * them twice.
 *
 * @throws ConfigError naming the bad setting; its message never contains the salt.
 * @example
 * const config = parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: salt });
 */
export function parseTeeConfig(env: Readonly<Record<string, string | undefined>>): TeeConfig {
  return toTeeConfig(parseSettings(teeSettingsSchema, env));
}
