import { describe, expect, it } from 'vitest';
import { loadConfig, toServerOptions } from '../config';
import { describeGuards } from './guard-settings';

async function optionsFrom(env: Record<string, string>) {
  return toServerOptions(await loadConfig({ env, cwd: '/nonexistent-parley-dir' }));
}

describe('guard settings', () => {
  it('reach every protection createServer takes', async () => {
    const options = await optionsFrom({
      TRUST_PROXY: '10.0.0.0/8, loopback',
      ALLOWED_HOSTS: 'chat.example.com,.example.org',
      ALLOWED_ORIGINS: 'https://app.example.com',
      RATE_LIMIT_BURST: '5',
      RATE_LIMIT_PER_SECOND: '0.5',
      MAX_CONNECTIONS: '500',
      MAX_CONNECTIONS_PER_ADDRESS: '0',
      LIMIT_LOOPBACK: 'true',
    });
    expect(options.trustProxy).toEqual(['10.0.0.0/8', 'loopback']);
    expect(options.allowedHosts).toEqual(['chat.example.com', '.example.org']);
    expect(options.allowedOrigins).toEqual(['https://app.example.com']);
    expect(options.rateLimit).toEqual({ burst: 5, perSecond: 0.5, limitLoopback: true });
    expect(options.connections).toEqual({
      maxConnections: 500,
      maxConnectionsPerAddress: 0,
      limitLoopback: true,
    });
  });

  it('default to the guards’ own defaults, and turn rate limits off on request', async () => {
    const defaults = await optionsFrom({});
    expect(defaults.trustProxy).toBe(false);
    expect(defaults.allowedHosts).toBeUndefined();
    expect(defaults.rateLimit).toEqual({ burst: 60, perSecond: 10, limitLoopback: false });
    expect(defaults.connections).toMatchObject({
      maxConnections: 2000,
      maxConnectionsPerAddress: 100,
    });
    expect((await optionsFrom({ RATE_LIMIT: 'off' })).rateLimit).toBe(false);
    expect((await optionsFrom({ TRUST_PROXY: 'true' })).trustProxy).toBe(true);
  });

  it('refuse a bad value with one line naming the setting', async () => {
    for (const [name, value] of [
      ['TRUST_PROXY', 'proxy.example'],
      ['TRUST_PROXY', '10.0.0.0/40'],
      ['RATE_LIMIT_BURST', '0'],
      ['RATE_LIMIT_PER_SECOND', '-1'],
      ['MAX_CONNECTIONS', 'many'],
      ['LIMIT_LOOPBACK', 'maybe'],
    ] as const) {
      await expect(optionsFrom({ [name]: value }), `${name}=${value}`).rejects.toThrow(name);
    }
  });
});

describe('describeGuards', () => {
  it('names the guards, and warns when the server is reachable without a token', async () => {
    const base = (await loadConfig({ env: {}, cwd: '/nonexistent-parley-dir' })).settings;
    const local = describeGuards(base);
    expect(local.status).toBe('ok');
    expect(local.message).toContain('TRUST_PROXY none');
    const exposed = describeGuards({ ...base, HOST: '0.0.0.0' });
    expect(exposed.status).toBe('warn');
    expect(exposed.message).toContain('without SERVER_AUTH_TOKEN');
    expect(describeGuards({ ...base, HOST: '0.0.0.0', SERVER_AUTH_TOKEN: 't' }).status).toBe('ok');
  });
});
