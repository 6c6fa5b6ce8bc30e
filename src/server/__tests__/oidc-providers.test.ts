import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '#test/support/databases.ts';
import { TEST_IDP_CLIENT, startTestIdp, type TestIdp } from '#test/support/test-idp.ts';
import { BFF_SCHEMA, MIGRATIONS_FOLDER } from '../db/storage.ts';
import type { OidcEnv } from '../env.ts';
import { chooseClientAuthMethod } from '../session/oidc.ts';
import { ORIGIN, buildTestBff, sendSignedIn, type TestBff } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';
import { finishAtBff, logoutAtIdp, oidcEnvFor, signInAtIdp } from './support/idp-sign-in.ts';

/**
 * Company sign-in against providers that differ from oidc-provider's defaults in the ways a walk
 * with Glewlwyd found (docs/security.md, Company sign-in): a token endpoint that accepts only
 * `client_secret_post`, a logout that sends the browser back only when `state` is sent, and
 * token endpoint refusals worded by their RFC 6749 code.
 */

/** A token request as the relay in front of the IdP saw it (never logged or kept elsewhere). */
interface SeenTokenRequest {
  authorization: string | null;
  body: URLSearchParams;
}

let fake: FakeUpstream;
let testDb: TestDatabase;
const open: { close(): Promise<unknown> }[] = [];

beforeAll(async () => {
  fake = await startFakeUpstream();
  testDb = await createTestDatabase('pglite');
  // Migrated here, under the hook's time limit, so each test's BFF opens a ready database.
  await (await testDb.open()).migrate({ migrationsFolder: MIGRATIONS_FOLDER, schema: BFF_SCHEMA });
});
afterAll(async () => {
  for (const closable of open.reverse()) await closable.close();
  await testDb.drop();
  await fake.close();
});

/** The IdP and a BFF signed in through it, with the BFF's log lines and the token requests. */
async function stack(
  idpOptions: Partial<Parameters<typeof startTestIdp>[0]>,
  oidc: Partial<OidcEnv> = {},
  tokenFault?: () => Response | undefined,
): Promise<{
  idp: TestIdp;
  bff: TestBff;
  logLines: Record<string, unknown>[];
  tokens: SeenTokenRequest[];
}> {
  const idp = await startTestIdp({ port: 0, redirectOrigins: [ORIGIN], ...idpOptions });
  open.push(idp);
  const logLines: Record<string, unknown>[] = [];
  const tokens: SeenTokenRequest[] = [];
  const bff = await buildTestBff(fake, {
    database: await testDb.open(),
    dataDir: testDb.dataDir,
    oidc: { ...oidcEnvFor(idp.issuer), ...oidc },
    logger: {
      level: 'info',
      stream: { write: (line: string) => void logLines.push(JSON.parse(line)) },
    },
    testing: {
      oidcFetch: async (url, init) => {
        if (url.endsWith('/token')) {
          const headers = new Headers((init as RequestInit).headers);
          tokens.push({
            authorization: headers.get('authorization'),
            body: new URLSearchParams(String(init.body)),
          });
          const fault = tokenFault?.();
          if (fault) return fault;
        }
        return fetch(url, init as RequestInit);
      },
    },
  });
  open.push(bff.app);
  bff.clock.nowMs = Date.now();
  return { idp, bff, logLines, tokens };
}

const refusedWith = (refusal: string) => `/sign-in?refused=${refusal}`;

describe('the token endpoint’s client authentication', () => {
  it('is chosen from what the provider lists, client_secret_basic first, unless configured', () => {
    expect(chooseClientAuthMethod(undefined, undefined)).toBe('client_secret_basic');
    expect(chooseClientAuthMethod([], undefined)).toBe('client_secret_basic');
    expect(chooseClientAuthMethod(['client_secret_post', 'client_secret_basic'], undefined)).toBe(
      'client_secret_basic',
    );
    expect(chooseClientAuthMethod(['private_key_jwt', 'client_secret_post'], undefined)).toBe(
      'client_secret_post',
    );
    expect(chooseClientAuthMethod(['private_key_jwt', 'tls_client_auth'], undefined)).toBe(
      undefined,
    );
    expect(
      chooseClientAuthMethod(['client_secret_basic', 'client_secret_post'], 'client_secret_post'),
    ).toBe('client_secret_post');
  });

  it('is client_secret_post at a provider whose discovery lists only it, and the sign-in succeeds', async () => {
    const { idp, bff, logLines, tokens } = await stack({
      clientAuthMethods: ['client_secret_post'],
    });
    const discovery = (await (
      await fetch(`${idp.issuer}/.well-known/openid-configuration`)
    ).json()) as { token_endpoint_auth_methods_supported: string[] };
    expect(discovery.token_endpoint_auth_methods_supported).toEqual(['client_secret_post']);

    const { response, cookie } = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'admin'));
    expect(response.headers.location).toBe('/');
    expect(cookie).not.toBe('');
    expect(tokens).toHaveLength(1);
    expect(tokens[0]?.authorization).toBeNull();
    expect(tokens[0]?.body.get('client_id')).toBe(TEST_IDP_CLIENT.clientId);
    expect(tokens[0]?.body.get('client_secret')).toBe(TEST_IDP_CLIENT.clientSecret);
    expect(logLines).toContainEqual(
      expect.objectContaining({
        msg: 'company sign-in authenticates at the token endpoint',
        clientAuth: 'client_secret_post',
        providerLists: ['client_secret_post'],
      }),
    );
  });

  it('follows OIDC_TOKEN_ENDPOINT_AUTH_METHOD, and words the provider’s invalid_client for the operator', async () => {
    const { bff, logLines, tokens } = await stack(
      { clientAuthMethods: ['client_secret_post'] },
      { tokenEndpointAuthMethod: 'client_secret_basic' },
    );
    const { response, cookie } = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'admin'));
    expect(response.headers.location).toBe(refusedWith('invalid_client'));
    expect(cookie).toBe('');
    expect(tokens[0]?.authorization).toMatch(/^Basic /);
    // The operator's choice stands: no second try with another method.
    expect(tokens).toHaveLength(1);
    expect(logLines).toContainEqual(
      expect.objectContaining({ clientAuth: 'client_secret_basic', level: 40 }),
    );
    // The technical cause is in the log; the secret is not.
    const refused = logLines.find((line) => line.msg === 'company sign-in refused');
    expect(refused).toMatchObject({ refusal: 'invalid_client', reason: 'invalid_client' });
    expect(JSON.stringify(logLines)).not.toContain(TEST_IDP_CLIENT.clientSecret);
  });
});

describe('a provider that lists client_secret_basic but refuses it (Glewlwyd)', () => {
  it('signs in with client_secret_post after the refusal, and starts with it from then on', async () => {
    const { bff, logLines, tokens } = await stack({ basicAuthRefused: true });
    const first = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'dispatcher'));
    expect(first.response.headers.location).toBe('/');
    expect(first.cookie).not.toBe('');
    expect(tokens.map((token) => (token.authorization ? 'basic' : 'post'))).toEqual([
      'basic',
      'post',
    ]);
    expect(logLines).toContainEqual(
      expect.objectContaining({ refused: 'client_secret_basic', clientAuth: 'client_secret_post' }),
    );

    const second = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'viewer'));
    expect(second.cookie).not.toBe('');
    expect(tokens.map((token) => (token.authorization ? 'basic' : 'post'))).toEqual([
      'basic',
      'post',
      'post',
    ]);
  });

  it('still says invalid_client when the secret is wrong either way', async () => {
    const { bff, tokens } = await stack({ basicAuthRefused: true }, { clientSecret: 'wrong' });
    const { response } = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'viewer'));
    expect(response.headers.location).toBe(refusedWith('invalid_client'));
    expect(tokens).toHaveLength(2);
  });
});

describe('a provider that refuses a client authentication with 403 unauthorized_client (Glewlwyd 2.7.5)', () => {
  it('signs in with client_secret_post after Basic was refused that way', async () => {
    const { bff, tokens } = await stack({
      basicAuthRefused: true,
      clientAuthRefusedAsUnauthorized: true,
    });
    const { response, cookie } = await finishAtBff(
      bff.app,
      await signInAtIdp(bff.app, 'dispatcher'),
    );
    expect(response.headers.location).toBe('/');
    expect(cookie).not.toBe('');
    expect(tokens.map((token) => (token.authorization ? 'basic' : 'post'))).toEqual([
      'basic',
      'post',
    ]);
  });

  it('words a wrong secret as the client ID or secret to check, not as a flow to allow', async () => {
    const { bff, tokens, logLines } = await stack(
      { basicAuthRefused: true, clientAuthRefusedAsUnauthorized: true },
      { clientSecret: 'wrong' },
    );
    const { response } = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'viewer'));
    expect(response.headers.location).toBe(refusedWith('invalid_client'));
    expect(tokens).toHaveLength(2);
    expect(logLines.find((line) => line.msg === 'company sign-in refused')).toMatchObject({
      refusal: 'invalid_client',
      reason: 'unauthorized_client',
      status: 403,
    });
  });
});

describe('a provider that compares HTTP Basic credentials without form-decoding them (Glewlwyd 2.7.5)', () => {
  it('signs in with a secret holding - and / at a client registered for client_secret_basic alone', async () => {
    const secret = 'powerdeck-test/idp-secret';
    const { bff, tokens } = await stack(
      {
        clientAuthMethods: ['client_secret_basic'],
        clientSecret: secret,
        basicCredentialsNotDecoded: true,
      },
      { clientSecret: secret },
    );
    const { response, cookie } = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'viewer'));
    expect(response.headers.location).toBe('/');
    expect(cookie).not.toBe('');
    expect(tokens).toHaveLength(1);
    expect(tokens[0]?.authorization).toBe(
      `Basic ${Buffer.from(`${TEST_IDP_CLIENT.clientId}:${secret}`).toString('base64')}`,
    );
  });

  it('still form-encodes a secret whose decoding would change it (+ or %)', async () => {
    const secret = 'powerdeck+test%2Fsecret';
    const { bff, tokens } = await stack(
      { clientAuthMethods: ['client_secret_basic'], clientSecret: secret },
      { clientSecret: secret },
    );
    const { response } = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'viewer'));
    expect(response.headers.location).toBe('/');
    expect(tokens).toHaveLength(1);
  });
});

describe('token endpoint refusals', () => {
  it('says invalid_client for a wrong client secret, and logs why', async () => {
    const { bff, logLines } = await stack({}, { clientSecret: 'not-the-secret' });
    const { response } = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'viewer'));
    expect(response.headers.location).toBe(refusedWith('invalid_client'));
    const refused = logLines.find((line) => line.msg === 'company sign-in refused');
    expect(refused).toMatchObject({
      refusal: 'invalid_client',
      reason: 'invalid_client',
      status: 401,
    });
    expect(refused?.errorDescription).toEqual(expect.any(String));
    expect(JSON.stringify(logLines)).not.toContain('not-the-secret');
  });

  it('says the provider is unavailable when its token endpoint fails', async () => {
    let fail = true;
    const { bff, logLines } = await stack({}, {}, () =>
      fail
        ? new Response('<html>502 Bad Gateway</html>', {
            status: 502,
            headers: { 'content-type': 'text/html' },
          })
        : undefined,
    );
    const { response } = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'viewer'));
    expect(response.headers.location).toBe(refusedWith('idp_unavailable'));
    expect(logLines.find((line) => line.msg === 'company sign-in refused')).toMatchObject({
      refusal: 'idp_unavailable',
      status: 502,
    });
    fail = false;
    const again = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'viewer'));
    expect(again.cookie).not.toBe('');
  });

  it('says the provider cannot be reached when its discovery fails, before leaving powerdeck', async () => {
    const idp = await startTestIdp({ port: 0, redirectOrigins: [ORIGIN] });
    const issuer = idp.issuer;
    await idp.close();
    const bff = await buildTestBff(fake, {
      database: await testDb.open(),
      dataDir: testDb.dataDir,
      oidc: oidcEnvFor(issuer),
    });
    open.push(bff.app);
    const start = await bff.app.inject({ method: 'GET', url: '/api/session/oidc?region=eu' });
    expect(start.statusCode).toBe(303);
    expect(start.headers.location).toBe(refusedWith('idp_unreachable'));
  });
});

describe('a provider that goes down while the BFF runs', () => {
  it('says it cannot be reached before sending the browser there', async () => {
    const { idp, bff } = await stack({});
    const first = await finishAtBff(bff.app, await signInAtIdp(bff.app, 'viewer'));
    expect(first.cookie).not.toBe('');
    open.splice(open.indexOf(idp), 1);
    await idp.close();
    const start = await bff.app.inject({ method: 'GET', url: '/api/session/oidc?region=eu' });
    expect(start.statusCode).toBe(303);
    expect(start.headers.location).toBe(refusedWith('idp_unreachable'));
  });
});

describe('sign-out at a provider that returns only when state is sent', () => {
  /** A dispatcher signs in through the provider, then out of the BFF: its answer and the sign-in. */
  async function signInThenOut() {
    const { bff } = await stack({ logoutReturnsOnlyWithState: true });
    const back = await signInAtIdp(bff.app, 'dispatcher');
    const { cookie } = await finishAtBff(bff.app, back);
    return { out: await sendSignedIn(bff.app, cookie, 'DELETE', '/api/session'), back };
  }

  it('sends state, so the provider sends the browser back to the sign-in page with it', async () => {
    const { out, back } = await signInThenOut();
    const answer = out.json<{ logoutUrl: string; state: string }>();
    const logoutUrl = new URL(answer.logoutUrl);
    expect(logoutUrl.searchParams.get('state')).toBe(answer.state);
    expect(logoutUrl.searchParams.get('id_token_hint')).toBeTruthy();
    expect(logoutUrl.searchParams.get('post_logout_redirect_uri')).toBe(`${ORIGIN}/sign-in`);

    const { returnedTo } = await logoutAtIdp(answer.logoutUrl, back.idpCookies);
    expect(returnedTo?.origin).toBe(ORIGIN);
    expect(returnedTo?.pathname).toBe('/sign-in');
    expect(returnedTo?.searchParams.get('state')).toBe(answer.state);
  });

  it('(the provider as the walk met it: without state its logout ends on its own page)', async () => {
    const { out, back } = await signInThenOut();
    const withoutState = new URL(out.json<{ logoutUrl: string }>().logoutUrl);
    withoutState.searchParams.delete('state');
    const ended = await logoutAtIdp(withoutState.toString(), back.idpCookies);
    expect(ended.returnedTo).toBeUndefined();
    expect(ended.page).toContain('Sign-out Success');
  });
});
