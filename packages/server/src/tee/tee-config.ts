import { isAbsolute } from 'node:path';
import { type TeeMode, teeModeSchema } from '@parley/core';
import { ConfigError } from '../config/config-error';

/** The dstack guest-API socket inside a dstack CVM. */
export const DSTACK_SOCKET_PATH = '/var/run/dstack.sock';
/** Where a dstack simulator listens when the server runs in a container on the developer's machine. */
export const DOCKER_SIMULATOR_ENDPOINT = 'http://host.docker.internal:8090';

const SALT_MIN_LENGTH = 8;
const SALT_MAX_LENGTH = 128;
const VENDORS = ['phala'] as const;

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

function parseMode(value: string | undefined): TeeMode {
  const mode = value?.trim().toUpperCase() || 'OFF';
  const parsed = teeModeSchema.safeParse(mode);
  if (!parsed.success) {
    throw new ConfigError(
      `TEE_MODE must be one of ${teeModeSchema.options.join(', ')}, got "${value}"`,
    );
  }
  return parsed.data;
}

function parseVendor(value: string | undefined): string {
  const vendor = value?.trim().toLowerCase() || 'phala';
  if (!(VENDORS as readonly string[]).includes(vendor)) {
    throw new ConfigError(`TEE_VENDOR must be one of ${VENDORS.join(', ')}, got "${value}"`);
  }
  return vendor;
}

function parseSalt(value: string | undefined, mode: TeeMode): string {
  const salt = value?.trim() ?? '';
  // The messages name the rule, never the value or its length: the salt is a secret even when it is wrong.
  if (salt === '') {
    throw new ConfigError(`WALLET_SECRET_SALT is required when TEE_MODE is ${mode}`);
  }
  if (salt.length < SALT_MIN_LENGTH || salt.length > SALT_MAX_LENGTH) {
    throw new ConfigError(
      `WALLET_SECRET_SALT must be ${SALT_MIN_LENGTH} to ${SALT_MAX_LENGTH} characters after trimming`,
    );
  }
  return salt;
}

function parseEndpoint(value: string | undefined): string | undefined {
  const endpoint = value?.trim();
  if (!endpoint) return undefined;
  if (isAbsolute(endpoint)) return endpoint;
  try {
    const url = new URL(endpoint);
    if (url.protocol === 'http:' || url.protocol === 'https:') return endpoint;
  } catch {
    // Falls through to the error below.
  }
  throw new ConfigError(
    'DSTACK_SIMULATOR_ENDPOINT must be an absolute unix socket path or an http(s) URL',
  );
}

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

/**
 * Reads the TEE settings: `TEE_MODE` (OFF, LOCAL, DOCKER, PRODUCTION; case-insensitive; default OFF),
 * `TEE_VENDOR` (default phala), `WALLET_SECRET_SALT` (required unless OFF; 8 to 128 characters after trimming)
 * and `DSTACK_SIMULATOR_ENDPOINT` (LOCAL and DOCKER only).
 *
 * @throws ConfigError naming the bad setting; its message never contains the salt.
 * @example
 * const config = parseTeeConfig(process.env);
 */
export function parseTeeConfig(env: Record<string, string | undefined>): TeeConfig {
  const mode = parseMode(env.TEE_MODE);
  const vendor = parseVendor(env.TEE_VENDOR);
  if (mode === 'OFF') return { mode, vendor, salt: undefined, endpoint: undefined };
  const salt = parseSalt(env.WALLET_SECRET_SALT, mode);
  return {
    mode,
    vendor,
    salt,
    endpoint: endpointFor(mode, parseEndpoint(env.DSTACK_SIMULATOR_ENDPOINT)),
  };
}
