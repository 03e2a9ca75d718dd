import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/config-error';
import { parseTeeConfig } from './tee-settings';

const SALT = 'a-salt-of-sufficient-length';

function configError(env: Record<string, string>): ConfigError {
  try {
    parseTeeConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseTeeConfig', () => {
  it('defaults to OFF with vendor phala and no salt, even when one is set', () => {
    expect(parseTeeConfig({})).toEqual({
      mode: 'OFF',
      vendor: 'phala',
      salt: undefined,
      endpoint: undefined,
    });
    expect(parseTeeConfig({ TEE_MODE: ' ', WALLET_SECRET_SALT: SALT }).salt).toBeUndefined();
  });

  it('reads the mode case-insensitively and refuses unknown modes', () => {
    expect(parseTeeConfig({ TEE_MODE: 'local', WALLET_SECRET_SALT: SALT }).mode).toBe('LOCAL');
    expect(parseTeeConfig({ TEE_MODE: 'Production', WALLET_SECRET_SALT: SALT }).mode).toBe(
      'PRODUCTION',
    );
    expect(configError({ TEE_MODE: 'SGX' }).message).toBe(
      'TEE_MODE must be one of OFF, LOCAL, DOCKER, PRODUCTION, got "SGX"',
    );
  });

  it('picks the endpoint per mode', () => {
    const withSalt = (env: Record<string, string>) =>
      parseTeeConfig({ WALLET_SECRET_SALT: SALT, ...env });
    expect(withSalt({ TEE_MODE: 'LOCAL' }).endpoint).toBeUndefined();
    expect(
      withSalt({ TEE_MODE: 'LOCAL', DSTACK_SIMULATOR_ENDPOINT: 'http://127.0.0.1:8090' }).endpoint,
    ).toBe('http://127.0.0.1:8090');
    expect(withSalt({ TEE_MODE: 'DOCKER' }).endpoint).toBe('http://host.docker.internal:8090');
    expect(
      withSalt({ TEE_MODE: 'DOCKER', DSTACK_SIMULATOR_ENDPOINT: '/tmp/sim.sock' }).endpoint,
    ).toBe('/tmp/sim.sock');
    expect(
      withSalt({ TEE_MODE: 'PRODUCTION', DSTACK_SIMULATOR_ENDPOINT: '/tmp/sim.sock' }).endpoint,
    ).toBe('/var/run/dstack.sock');
    expect(
      configError({
        TEE_MODE: 'LOCAL',
        WALLET_SECRET_SALT: SALT,
        DSTACK_SIMULATOR_ENDPOINT: 'sim.sock',
      }).message,
    ).toMatch(/DSTACK_SIMULATOR_ENDPOINT must be/);
  });

  it('requires a salt of 8 to 128 characters after trimming, and never echoes it', () => {
    expect(configError({ TEE_MODE: 'LOCAL' }).message).toBe(
      'WALLET_SECRET_SALT is required when TEE_MODE is LOCAL',
    );
    for (const salt of ['short7!', `  ${'s'.repeat(7)}  `, 'x'.repeat(129)]) {
      const error = configError({ TEE_MODE: 'PRODUCTION', WALLET_SECRET_SALT: salt });
      expect(error.message).toBe('WALLET_SECRET_SALT must be 8 to 128 characters after trimming');
      expect(error.message).not.toContain(salt.trim());
    }
    expect(
      parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: `  ${'s'.repeat(8)}  ` }).salt,
    ).toBe('s'.repeat(8));
    expect(
      parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: 'x'.repeat(128) }).salt,
    ).toHaveLength(128);
  });

  it('accepts the phala vendor in any case and refuses others', () => {
    expect(parseTeeConfig({ TEE_VENDOR: 'Phala' }).vendor).toBe('phala');
    expect(configError({ TEE_VENDOR: 'azure' }).message).toMatch(/TEE_VENDOR must be one of phala/);
  });
});
