import { describe, expect, it } from 'vitest';
import { useContractTarget } from './support/contract-target.ts';
import { expectError } from './support/steps.ts';
import { TokenAnswerSchema } from '#sandbox/vendor/schemas.ts';

/**
 * Tokens (docs/upstream.md, Tokens): the client-credentials grant as the partner guide shows it,
 * and a token of one region refused by the other. Token errors and the lifetime are in
 * errors.test.ts and limits.test.ts.
 */
const target = useContractTarget();

const grant = () => ({
  grant_type: 'client_credentials',
  client_id: target.config.clientId,
  client_secret: target.config.clientSecret,
});

describe('the token endpoint (docs/upstream.md, Tokens)', () => {
  it('a form POST answers { access_token, token_type: "Bearer", expires_in } and is not cached', async () => {
    const response = await target.upstream.requestToken(grant());
    expect(response.status).toBe(200);
    const token = TokenAnswerSchema.parse(response.body);
    expect(token.token_type).toBe('Bearer');
    expect(token.expires_in).toBeGreaterThan(0);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('the optional scope is accepted', async () => {
    const response = await target.upstream.requestToken({ ...grant(), scope: 'commands.write' });
    expect(response.status).toBe(200);
  });

  it('each request issues a new token, and both work', async () => {
    const first = await target.newClient().signIn();
    const second = await target.newClient().signIn();
    expect(first.accessToken).not.toBe(second.accessToken);
    for (const { accessToken } of [first, second])
      expect((await target.upstream.listSites({}, { token: accessToken })).status).toBe(200);
  });

  it("a token of one region is refused by the other region's API (401 UNAUTHORIZED)", async (context) => {
    const other = target.requireSetting(
      context,
      target.otherRegionClient(),
      'CONTRACT_OTHER_BASE_URL, CONTRACT_OTHER_CLIENT_ID and CONTRACT_OTHER_CLIENT_SECRET',
    );
    other.accessToken = target.upstream.accessToken;
    expectError(await other.listSites(), 401, 'UNAUTHORIZED');
  });
});
