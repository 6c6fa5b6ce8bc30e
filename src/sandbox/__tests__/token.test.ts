import { describe, expect, it } from 'vitest';
import { ErrorBodySchema, TokenAnswerSchema } from '../vendor/schemas.ts';
import { AU, EU, useSandboxHarness } from './support/sandbox-harness.ts';

const sandbox = useSandboxHarness();

const form = (overrides: Record<string, string> = {}) => ({
  grant_type: 'client_credentials',
  client_id: 'demo-eu',
  client_secret: 'demo-eu-secret',
  ...overrides,
});

describe('token endpoint (docs/upstream.md, Tokens; RFC 6749 errors)', () => {
  it('issues a Bearer token with expires_in for the demo clients of both regions', async () => {
    const eu = await sandbox.tokenRequest('eu', form());
    expect(eu.status).toBe(200);
    expect(eu.headers['cache-control']).toBe('no-store');
    expect(TokenAnswerSchema.parse(eu.body).token_type).toBe('Bearer');
    expect(Object.keys(eu.body as object).sort()).toEqual([
      'access_token',
      'expires_in',
      'token_type',
    ]);
    const au = await sandbox.tokenRequest(
      'au',
      form({ client_id: 'demo-au', client_secret: 'demo-au-secret' }),
    );
    expect(au.status).toBe(200);
  });

  it('accepts and ignores the optional scope', async () => {
    const response = await sandbox.tokenRequest('eu', form({ scope: 'commands.write' }));
    expect(response.status).toBe(200);
  });

  it.each([
    [{ grant_type: 'password' }, 400, 'unsupported_grant_type'],
    [{ grant_type: '' }, 400, 'invalid_request'],
    [{ client_secret: '' }, 400, 'invalid_request'],
    [{ client_secret: 'wrong' }, 401, 'invalid_client'],
    [{ client_id: 'nobody' }, 401, 'invalid_client'],
  ])('answers %j with %i %s', async (overrides, status, error) => {
    const response = await sandbox.tokenRequest('eu', form(overrides));
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ error });
    expect((response.body as { error_description: string }).error_description).toBeTruthy();
  });

  it('refuses a client of the other region with invalid_client', async () => {
    const response = await sandbox.tokenRequest('au', form());
    expect(response).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('refuses a JSON token request with invalid_request', async () => {
    const response = await sandbox.call('POST', '/eu/api/auth/oauth2/token', { json: form() });
    expect(response).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it.each([
    ['malformed JSON', '{"grant_type":', 'application/json'],
    ['a JSON array', '[1, 2]', 'application/json'],
    ['a JSON body with a charset', '{}', 'application/json; charset=utf-8'],
  ])(
    'answers %s with RFC 6749 invalid_request, not the API error shape',
    async (_what, payload, type) => {
      const response = await sandbox.app.inject({
        method: 'POST',
        url: '/eu/api/auth/oauth2/token',
        headers: { 'content-type': type },
        payload,
      });
      expect(response.statusCode).toBe(400);
      const body = response.json<Record<string, unknown>>();
      expect(body).toMatchObject({ error: 'invalid_request' });
      expect(body).not.toHaveProperty('errorCode');
      expect(body.error_description).toEqual(expect.stringContaining('form'));
    },
  );

  it('refuses a missing, unknown or other-region token with 401 UNAUTHORIZED and WWW-Authenticate', async () => {
    const euToken = await sandbox.token('demo-eu');
    for (const token of [undefined, 'not-a-token', euToken]) {
      const response = await sandbox.call('GET', `${AU}/sites`, token ? { token } : {});
      expect(response.status).toBe(401);
      expect(ErrorBodySchema.parse(response.body).errorCode).toBe('UNAUTHORIZED');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
    }
    expect((await sandbox.call('GET', `${EU}/sites`, { token: euToken })).status).toBe(200);
  });

  it.each([
    ['string', '600'],
    ['absent', undefined],
  ] as const)(
    'writes expires_in as a %s under the tokenExpiresIn fault, as other servers do',
    async (as, expected) => {
      await sandbox.admin('PUT', '/faults', { tokenTtlS: 600, tokenExpiresIn: as });
      const response = await sandbox.tokenRequest('eu', form());
      expect(response.status).toBe(200);
      expect((response.body as Record<string, unknown>).expires_in).toBe(expected);
      const token = (response.body as { access_token: string }).access_token;
      expect((await sandbox.call('GET', `${EU}/sites`, { token })).status).toBe(200);
    },
  );

  it('answers token requests alone with the tokenErrorStatus fault; the API keeps working', async () => {
    const token = await sandbox.token();
    await sandbox.admin('PUT', '/faults', { tokenErrorStatus: 503 });
    const refused = await sandbox.tokenRequest('eu', form());
    expect(refused.status).toBe(503);
    expect(ErrorBodySchema.parse(refused.body).errorCode).toBe('SERVICE_UNAVAILABLE');
    expect((await sandbox.call('GET', `${EU}/sites`, { token })).status).toBe(200);
  });

  it('expires tokens on the sandbox clock after the tokenTtlS fault lifetime', async () => {
    await sandbox.admin('PUT', '/faults', { tokenTtlS: 30 });
    const response = await sandbox.tokenRequest('eu', form());
    const { access_token: token, expires_in: ttlS } = TokenAnswerSchema.parse(response.body);
    expect(ttlS).toBe(30);
    await sandbox.admin('POST', '/clock', { advanceMs: 29_000 });
    expect((await sandbox.call('GET', `${EU}/sites`, { token })).status).toBe(200);
    await sandbox.admin('POST', '/clock', { advanceMs: 1_000 });
    expect((await sandbox.call('GET', `${EU}/sites`, { token })).status).toBe(401);
  });
});
