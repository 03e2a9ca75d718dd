import type { TeeMode } from '@parley/core';
import { parseSettings } from '../config/parse-settings';
import { teeSettingsSchema } from '../config/settings-schema';

/** The dstack guest-API socket inside a dstack CVM. */
export const DSTACK_SOCKET_PATH = '/var/run/dstack.sock';
/** Where a dstack simulator listens when the server runs in a container on the developer's machine. */
export const DOCKER_SIMULATOR_ENDPOINT = 'http://host.docker.internal:8090';

/** The TEE settings. `salt` is a secret: never log it, never return it. */
export interface TeeConfig {
  mode: TeeMode;
  /** TEE vendor reported by the status endpoint (`TEE_VENDOR`, default `phala`). */
  vendor: string;
  /** `WALLET_SECRET_SALT`, trimmed; undefined in OFF. */
  salt: string | undefined;
  /** dstack guest API: a unix socket path or an http(s) URL; undefined means the built-in simulator (LOCAL). */
  endpoint: string | undefined;
}

/** The TEE that is off: the default of a server given no TEE settings. */
export const TEE_OFF: TeeConfig = {
  mode: 'OFF',
  vendor: 'phala',
  salt: undefined,
  endpoint: undefined,
};

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
 * Reads the TEE settings: `TEE_MODE` (OFF, LOCAL, DOCKER, PRODUCTION; case-insensitive; default OFF),
 * `TEE_VENDOR` (default phala), `WALLET_SECRET_SALT` (required unless OFF; 8 to 128 characters after trimming)
 * and `DSTACK_SIMULATOR_ENDPOINT` (LOCAL and DOCKER only). The rules live in the one settings schema
 * (`config/settings-schema.ts`).
 *
 * @throws ConfigError naming the bad setting; its message never contains the salt.
 * @example
 * const config = parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: salt });
 */
export function parseTeeConfig(env: Record<string, string | undefined>): TeeConfig {
  return toTeeConfig(parseSettings(teeSettingsSchema, env));
}
