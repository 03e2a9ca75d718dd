import type { TeeMode } from '@parley/core';
import { DEFAULTS } from '../defaults';

/** The dstack guest-API socket inside a dstack CVM. */
export const DSTACK_SOCKET_PATH = '/var/run/dstack.sock';
/** Where a dstack simulator listens when the server runs in a container on the developer's machine. */
export const DOCKER_SIMULATOR_ENDPOINT = 'http://host.docker.internal:8090';

/**
 * The TEE settings. `salt` is a secret: never log it, never return it. Read from the environment by
 * `parseTeeConfig` (the settings schema's `TEE_*` settings, in `config/`).
 */
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
  mode: DEFAULTS.teeMode,
  vendor: DEFAULTS.teeVendor,
  salt: undefined,
  endpoint: undefined,
};
