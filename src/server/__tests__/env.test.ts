import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseServerEnv } from '../env.ts';

describe('parseServerEnv', () => {
  it('defaults to the sandbox on 127.0.0.1:8090 and the BFF on 127.0.0.1:8080', () => {
    expect(parseServerEnv({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      publicOrigin: 'http://127.0.0.1:8080',
      upstreams: {
        eu: {
          authUrl: 'http://127.0.0.1:8090/eu',
          baseUrl: 'http://127.0.0.1:8090/eu/api/openapi/v1',
        },
        au: {
          authUrl: 'http://127.0.0.1:8090/au',
          baseUrl: 'http://127.0.0.1:8090/au/api/openapi/v1',
        },
      },
      usesSandbox: true,
      upstreamTimeoutMs: 10_000,
      deviceCallsPerMinute: { eu: 2, au: 2 },
      deviceReadOpenEveryMs: 300_000,
      deviceReadIdleEveryMs: 1_800_000,
      fleetSnapshotEveryMs: 300_000,
    });
  });

  it('takes how often the fleet snapshot reads each device, and 0 for never', () => {
    expect(parseServerEnv({ FLEET_SNAPSHOT_EVERY_S: '0' }).fleetSnapshotEveryMs).toBe(0);
    expect(parseServerEnv({ FLEET_SNAPSHOT_EVERY_S: '600' }).fleetSnapshotEveryMs).toBe(600_000);
    expect(() => parseServerEnv({ FLEET_SNAPSHOT_EVERY_S: '30' })).toThrow(
      /FLEET_SNAPSHOT_EVERY_S must be 60-86400, or 0/,
    );
  });

  it('takes how often devices are read besides their moments, and 0 for never when idle', () => {
    const env = parseServerEnv({ DEVICE_READ_OPEN_EVERY_S: '60', DEVICE_READ_IDLE_EVERY_S: '0' });
    expect([env.deviceReadOpenEveryMs, env.deviceReadIdleEveryMs]).toEqual([60_000, 0]);
    expect(() => parseServerEnv({ DEVICE_READ_IDLE_EVERY_S: '10' })).toThrow(
      /DEVICE_READ_IDLE_EVERY_S must be 60-604800, or 0/,
    );
    expect(() => parseServerEnv({ DEVICE_READ_OPEN_EVERY_S: '0' })).toThrow(
      /DEVICE_READ_OPEN_EVERY_S must be 30-86400/,
    );
  });

  it("takes each region's device call budget and refuses one that allows nothing", () => {
    expect(
      parseServerEnv({ EU_DEVICE_CALLS_PER_MINUTE: '4', AU_DEVICE_CALLS_PER_MINUTE: '1' })
        .deviceCallsPerMinute,
    ).toEqual({ eu: 4, au: 1 });
    expect(() => parseServerEnv({ EU_DEVICE_CALLS_PER_MINUTE: '0' })).toThrow(
      /EU_DEVICE_CALLS_PER_MINUTE must be 1-1000/,
    );
    expect(() => parseServerEnv({ AU_DEVICE_CALLS_PER_MINUTE: '1.5' })).toThrow(
      /AU_DEVICE_CALLS_PER_MINUTE must be a whole number/,
    );
  });

  it('follows PORT, SANDBOX_PORT and the optional settings', () => {
    const env = parseServerEnv({
      PORT: '18080',
      SANDBOX_PORT: '18090',
      DATABASE_URL: 'postgres://localhost/x',
      SESSION_KEY: 'k',
    });
    expect(env.publicOrigin).toBe('http://127.0.0.1:18080');
    expect(env.upstreams.au.baseUrl).toBe('http://127.0.0.1:18090/au/api/openapi/v1');
    expect(env.databaseUrl).toBe('postgres://localhost/x');
    expect(env.sessionKey).toBe('k');
  });

  it('takes a real upstream when all four URLs are set', () => {
    const env = parseServerEnv({
      EU_AUTH_URL: 'https://auth.eu.example.com/',
      EU_BASE_URL: 'https://api.eu.example.com/v1',
      AU_AUTH_URL: 'https://auth.au.example.com',
      AU_BASE_URL: 'https://api.au.example.com/v1',
      PUBLIC_ORIGIN: 'https://powerdeck.example.com',
    });
    expect(env.usesSandbox).toBe(false);
    expect(env.upstreams.eu).toEqual({
      authUrl: 'https://auth.eu.example.com',
      baseUrl: 'https://api.eu.example.com/v1',
    });
    expect(env.publicOrigin).toBe('https://powerdeck.example.com');
  });

  it('names the missing upstream variables when only some are set', () => {
    expect(() =>
      parseServerEnv({ EU_AUTH_URL: 'https://a.example', EU_BASE_URL: 'https://b.example' }),
    ).toThrow(/AU_AUTH_URL, AU_BASE_URL missing/);
  });

  it('refuses bad values with a message naming the variable', () => {
    expect(() => parseServerEnv({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => parseServerEnv({ PUBLIC_ORIGIN: 'https://x.example/app' })).toThrow(
      /PUBLIC_ORIGIN/,
    );
    expect(() =>
      parseServerEnv({
        EU_AUTH_URL: 'ftp://a.example',
        EU_BASE_URL: 'https://b.example',
        AU_AUTH_URL: 'https://c.example',
        AU_BASE_URL: 'https://d.example',
      }),
    ).toThrow(/EU_AUTH_URL/);
  });

  it('turns the test-only routes on for a loopback origin only', () => {
    expect(parseServerEnv({}).testRoutes).toBeUndefined();
    expect(parseServerEnv({ TEST_ROUTES: '1' }).testRoutes).toBe(true);
    expect(parseServerEnv({ TEST_ROUTES: '0' }).testRoutes).toBeUndefined();
    expect(() =>
      parseServerEnv({ TEST_ROUTES: '1', PUBLIC_ORIGIN: 'https://powerdeck.example.com' }),
    ).toThrow(/TEST_ROUTES=1 is for tests on loopback only/);
    expect(() => parseServerEnv({ TEST_ROUTES: 'yes' })).toThrow(/TEST_ROUTES must be 0 or 1/);
  });

  it('keeps outgoing webhooks off private addresses unless told otherwise', () => {
    expect(parseServerEnv({}).webhooksAllowPrivateAddresses).toBeUndefined();
    expect(
      parseServerEnv({ WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' }).webhooksAllowPrivateAddresses,
    ).toBe(true);
    expect(
      parseServerEnv({ WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'false' }).webhooksAllowPrivateAddresses,
    ).toBeUndefined();
    expect(() => parseServerEnv({ WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: '1' })).toThrow(
      /WEBHOOKS_ALLOW_PRIVATE_ADDRESSES must be true or false/,
    );
  });

  describe('company sign-in (OIDC_*)', () => {
    const oidc = {
      OIDC_ISSUER: 'https://id.example.com/realms/ops',
      OIDC_CLIENT_ID: 'powerdeck',
      OIDC_CLIENT_SECRET: 's3cret',
      PUBLIC_ORIGIN: 'https://powerdeck.example.com',
    };

    it('is off without OIDC_ISSUER, so the credentials form stays', () => {
      expect(parseServerEnv({}).oidc).toBeUndefined();
    });

    it('reads the issuer, the client, the roles claim and the role names', () => {
      expect(
        parseServerEnv({
          ...oidc,
          OIDC_ROLES_CLAIM: 'groups',
          OIDC_ROLE_DISPATCHER: 'ops-dispatch, ops-lead',
        }).oidc,
      ).toEqual({
        issuer: 'https://id.example.com/realms/ops',
        clientId: 'powerdeck',
        clientSecret: 's3cret',
        rolesClaim: 'groups',
        roleNames: {
          viewer: ['viewer'],
          dispatcher: ['ops-dispatch', 'ops-lead'],
          admin: ['admin'],
        },
      });
      expect(parseServerEnv(oidc).oidc?.rolesClaim).toBe('roles');
    });

    it("takes the token endpoint's client authentication from the discovery unless one is set", () => {
      expect(parseServerEnv(oidc).oidc?.tokenEndpointAuthMethod).toBeUndefined();
      expect(
        parseServerEnv({ ...oidc, OIDC_TOKEN_ENDPOINT_AUTH_METHOD: '' }).oidc
          ?.tokenEndpointAuthMethod,
      ).toBeUndefined();
      expect(
        parseServerEnv({ ...oidc, OIDC_TOKEN_ENDPOINT_AUTH_METHOD: 'client_secret_post' }).oidc
          ?.tokenEndpointAuthMethod,
      ).toBe('client_secret_post');
      expect(() =>
        parseServerEnv({ ...oidc, OIDC_TOKEN_ENDPOINT_AUTH_METHOD: 'private_key_jwt' }),
      ).toThrow(
        /OIDC_TOKEN_ENDPOINT_AUTH_METHOD must be client_secret_basic or client_secret_post/,
      );
    });

    it('names what is missing or wrong', () => {
      expect(() => parseServerEnv({ OIDC_ISSUER: oidc.OIDC_ISSUER })).toThrow(
        /OIDC_CLIENT_ID, OIDC_CLIENT_SECRET missing/,
      );
      expect(() => parseServerEnv({ ...oidc, PUBLIC_ORIGIN: undefined })).toThrow(
        /PUBLIC_ORIGIN must be set with OIDC_ISSUER/,
      );
      expect(() => parseServerEnv({ ...oidc, OIDC_ISSUER: 'http://id.example.com' })).toThrow(
        /OIDC_ISSUER must be https/,
      );
      expect(() => parseServerEnv({ ...oidc, OIDC_ROLE_ADMIN: ' , ' })).toThrow(
        /OIDC_ROLE_ADMIN must name at least one role value/,
      );
      expect(parseServerEnv({ ...oidc, OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer).toBe(
        'http://127.0.0.1:9000',
      );
    });
  });
});
