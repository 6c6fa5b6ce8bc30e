import { describe, expect, it } from 'vitest';
import { isLoopback, parseSandboxEnv } from '../env.ts';
import { PUBLISHED_DIALECT } from '../vendor/dialect.ts';

describe('sandbox environment (our choices)', () => {
  it('defaults to 127.0.0.1:8090, demo, ./data, admin on, the published dialect, the vendor rate limit', () => {
    expect(parseSandboxEnv({})).toEqual({
      port: 8090,
      host: '127.0.0.1',
      fixture: 'demo',
      dataDir: './data',
      databaseUrl: undefined,
      adminEnabled: true,
      dialect: PUBLISHED_DIALECT,
      deviceRateLimitPerMinute: 2,
    });
  });

  it('reads the rate limit from SANDBOX_RATE_LIMIT_PER_MINUTE, 0 = off, and refuses anything else', () => {
    expect(parseSandboxEnv({ SANDBOX_RATE_LIMIT_PER_MINUTE: '5' }).deviceRateLimitPerMinute).toBe(
      5,
    );
    expect(parseSandboxEnv({ SANDBOX_RATE_LIMIT_PER_MINUTE: '0' }).deviceRateLimitPerMinute).toBe(
      0,
    );
    for (const bad of ['', '-1', '1.5', 'off'])
      expect(() => parseSandboxEnv({ SANDBOX_RATE_LIMIT_PER_MINUTE: bad })).toThrow(
        /requests per device per minute/,
      );
  });

  it('reads the start dialect from SANDBOX_DIALECT and refuses a bad one', () => {
    expect(parseSandboxEnv({ SANDBOX_DIALECT: 'envelope=on' }).dialect.envelope).toBe(true);
    expect(() => parseSandboxEnv({ SANDBOX_DIALECT: 'envelope=maybe' })).toThrow(/envelope/);
  });

  it('turns the admin API off on a non-loopback host unless SANDBOX_ADMIN=1', () => {
    expect(parseSandboxEnv({ SANDBOX_HOST: '0.0.0.0' }).adminEnabled).toBe(false);
    expect(parseSandboxEnv({ SANDBOX_HOST: '0.0.0.0', SANDBOX_ADMIN: '1' }).adminEnabled).toBe(
      true,
    );
    expect(['localhost', '127.0.0.2', '::1'].every(isLoopback)).toBe(true);
    expect(['10.0.0.1', '::', 'example.com'].some(isLoopback)).toBe(false);
  });

  it('refuses a bad port or fixture', () => {
    expect(() => parseSandboxEnv({ SANDBOX_PORT: 'x' })).toThrow();
    expect(() => parseSandboxEnv({ SANDBOX_FIXTURE: 'huge' })).toThrow();
  });
});
