import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases.ts';
import {
  TEST_IDP_ACCOUNTS,
  TEST_IDP_CLIENT,
  startTestIdp,
  type TestIdp,
} from '../../../test/support/test-idp.ts';
import { SessionInfoSchema } from '../../domain/session.ts';
import { CSRF, ORIGIN, buildTestBff, type TestBff } from './support/bff.ts';
import { startFakeUpstream, type FakeUpstream } from './support/fake-upstream.ts';
import { finishAtBff, oidcEnvFor, signInAtIdp } from './support/idp-sign-in.ts';

let idp: TestIdp;
let fake: FakeUpstream;
let testDb: TestDatabase;
let bff: TestBff;
/** What the relay in front of the IdP does to the next token answer's ID token. */
let tamper: ((idToken: string) => string) | undefined;

beforeAll(async () => {
  idp = await startTestIdp({ port: 0, redirectOrigins: [ORIGIN] });
  fake = await startFakeUpstream();
  testDb = await createTestDatabase('pglite');
  bff = await buildTestBff(fake, {
    database: await testDb.open(),
    dataDir: testDb.dataDir,
    oidc: oidcEnvFor(idp.issuer),
    // A relay in front of the IdP: passes everything on, and alters an ID token when asked.
    oidcFetch: async (url, init) => {
      const response = await fetch(url, init as RequestInit);
      if (!tamper || !url.endsWith('/token')) return response;
      const body = (await response.json()) as { id_token: string };
      const altered = { ...body, id_token: tamper(body.id_token) };
      tamper = undefined;
      return new Response(JSON.stringify(altered), {
        status: response.status,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  // ID tokens are judged on the BFF's clock: make it the wall clock.
  bff.clock.nowMs = Date.now();
});
afterAll(async () => {
  await bff.app.close();
  await testDb.drop();
  await fake.close();
  await idp.close();
});

async function sessionOf(cookie: string) {
  const response = await bff.app.inject({
    method: 'GET',
    url: '/api/session',
    headers: { cookie },
  });
  return response;
}

describe('company sign-in through OpenID Connect', () => {
  it('tells the sign-in page to offer the company account', async () => {
    const response = await bff.app.inject({ method: 'GET', url: '/api/session/mode' });
    expect(response.json()).toEqual({ mode: 'oidc' });
  });

  it('starts with PKCE S256, state, nonce, the three scopes and the registered redirect URI', async () => {
    const response = await bff.app.inject({ method: 'GET', url: '/api/session/oidc?region=au' });
    expect(response.statusCode).toBe(303);
    const url = new URL(String(response.headers.location));
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('client_id')).toBe(TEST_IDP_CLIENT.clientId);
    expect(url.searchParams.get('scope')).toBe('openid profile email');
    expect(url.searchParams.get('redirect_uri')).toBe(`${ORIGIN}/api/session/oidc/callback`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    const attempt = response.cookies.find((c) => c.name === 'powerdeck_oidc');
    expect(attempt).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 600 });
    // Sealed: neither the state nor the verifier can be read from it.
    expect(attempt?.value).not.toContain(url.searchParams.get('state'));
  });

  it('signs a dispatcher in and out, the IdP session included', async () => {
    const back = await signInAtIdp(bff.app, 'dispatcher', { region: 'au' });
    const { response, cookie } = await finishAtBff(bff.app, back);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/');
    const session = response.cookies.find((c) => c.name === 'powerdeck_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(response.cookies.find((c) => c.name === 'powerdeck_oidc')?.value).toBe('');

    const info = SessionInfoSchema.parse((await sessionOf(cookie)).json());
    expect(info).toEqual({
      region: 'au',
      operator: {
        issuer: idp.issuer,
        subject: TEST_IDP_ACCOUNTS.dispatcher.sub,
        name: 'Dan Dispatcher',
        email: 'dan.dispatcher@example.com',
      },
      operatorName: 'Dan Dispatcher',
      role: 'dispatcher',
      csrfHeader: 'X-CSRF',
    });

    const out = await bff.app.inject({
      method: 'DELETE',
      url: '/api/session',
      headers: { cookie, ...CSRF },
    });
    expect(out.statusCode).toBe(200);
    const logout = new URL(out.json<{ logoutUrl: string }>().logoutUrl);
    expect(logout.origin).toBe(idp.issuer);
    expect(logout.searchParams.get('post_logout_redirect_uri')).toBe(`${ORIGIN}/sign-in`);
    expect(logout.searchParams.get('id_token_hint')).toBeTruthy();
    // The IdP accepts it: its logout page asks to confirm rather than answering an error.
    const atIdp = await fetch(logout, { redirect: 'manual' });
    expect(atIdp.status).toBe(200);
    expect(await atIdp.text()).toContain('logout');
    expect((await sessionOf(cookie)).statusCode).toBe(401);
  });

  it('refuses a forged state, and a return without the attempt cookie', async () => {
    const forged = await signInAtIdp(bff.app, 'viewer', {
      alter: (url) => url.searchParams.set('state', 'forged-state-value'),
    });
    const { response, cookie } = await finishAtBff(bff.app, forged);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('This sign-in could not be completed');
    expect(cookie).toBe('');

    const good = await signInAtIdp(bff.app, 'viewer');
    const stray = await finishAtBff(bff.app, { ...good, attemptCookie: '' });
    expect(stray.response.statusCode).toBe(400);
    expect(stray.cookie).toBe('');
  });

  it('refuses an ID token whose nonce is not the attempt’s', async () => {
    const back = await signInAtIdp(bff.app, 'viewer', {
      alter: (url) => url.searchParams.set('nonce', 'another-nonce-value'),
    });
    const { response, cookie } = await finishAtBff(bff.app, back);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('This sign-in could not be completed');
    expect(cookie).toBe('');
  });

  it('refuses a code issued for another PKCE challenge (the IdP refuses the verifier)', async () => {
    const back = await signInAtIdp(bff.app, 'viewer', {
      alter: (url) =>
        url.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'),
    });
    const { response, cookie } = await finishAtBff(bff.app, back);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Your company sign-in refused');
    expect(cookie).toBe('');
  });

  it('refuses an ID token altered on the way', async () => {
    const back = await signInAtIdp(bff.app, 'admin');
    tamper = (idToken) => {
      const [header, payload, signature] = idToken.split('.');
      const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'));
      const forged = { ...claims, roles: ['admin'], sub: TEST_IDP_ACCOUNTS.viewer.sub };
      return `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`;
    };
    const { response, cookie } = await finishAtBff(bff.app, back);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Your identity could not be verified');
    expect(cookie).toBe('');
  });

  it('refuses an expired ID token', async () => {
    const nowMs = bff.clock.nowMs;
    // The BFF's clock two hours ahead of the IdP's: the hour-long ID token has expired.
    bff.clock.nowMs = Date.now() + 2 * 60 * 60 * 1000;
    try {
      const back = await signInAtIdp(bff.app, 'admin');
      const { response, cookie } = await finishAtBff(bff.app, back);
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('Your identity could not be verified');
      expect(cookie).toBe('');
    } finally {
      bff.clock.nowMs = nowMs;
    }
  });

  it('refuses someone without a powerdeck role with a page that says so', async () => {
    const back = await signInAtIdp(bff.app, 'nobody');
    const { response, cookie } = await finishAtBff(bff.app, back);
    expect(response.statusCode).toBe(403);
    expect(response.body).toContain('Your account has no powerdeck role');
    expect(response.body).toContain('Ask your administrator');
    expect(cookie).toBe('');
  });

  it('turns the credentials form off', async () => {
    const response = await bff.app.inject({
      method: 'POST',
      url: '/api/session',
      headers: CSRF,
      payload: { region: 'eu', clientId: 'client', clientSecret: 'secret' },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('credentials_sign_in_off');
    expect(fake.tokenRequests).toBe(0);
  });
});
